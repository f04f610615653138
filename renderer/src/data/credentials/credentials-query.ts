// A page of the workspace's secrets (names and descriptions; values are write-only).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { ListResponse, Secret } from '../types';

export function getCredentials(appId: string, page: { limit: number; offset: number }): Promise<ListResponse<Secret>> {
  return workspaceApi<ListResponse<Secret>>(appId, '/credentials', { query: page });
}

export function useCredentialsQuery(appId: string, page: { limit: number; offset: number }) {
  return useQuery({ queryKey: keys.credentialsPage(appId, page.offset), queryFn: () => getCredentials(appId, page), placeholderData: keepPreviousData });
}
