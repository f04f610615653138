// A page of the workspace's files, newest first, searched by part of the name.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { FileObj, ListResponse } from '../types';

export interface FilesVariables { limit: number; offset: number; search?: string }

function filesQuery({ limit, offset, search }: FilesVariables) {
  return { limit, offset, sort: '-createdAt', ...(search ? { 'filter[name][$contains]': search } : {}) };
}

export function getFiles(appId: string, vars: FilesVariables): Promise<ListResponse<FileObj>> {
  return workspaceApi<ListResponse<FileObj>>(appId, '/storage', { query: filesQuery(vars) });
}

export function useFilesQuery(appId: string, vars: FilesVariables) {
  return useQuery({ queryKey: keys.filesPage(appId, filesQuery(vars)), queryFn: () => getFiles(appId, vars), placeholderData: keepPreviousData });
}
