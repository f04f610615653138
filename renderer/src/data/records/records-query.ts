// A page of a collection's records, as the grid's URL asks for it (filter, sort, view, limit,
// offset); a newer page asked for cancels the one still loading.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { ListResponse, Rec } from '../types';

export function getRecords(appId: string, collection: string, query: URLSearchParams, signal?: AbortSignal): Promise<ListResponse<Rec>> {
  return workspaceApi<ListResponse<Rec>>(appId, `/database/${enc(collection)}`, { query, signal });
}

export function useRecordsQuery(appId: string, collection: string, query: URLSearchParams) {
  return useQuery({
    queryKey: keys.recordsPage(appId, collection, query.toString()),
    queryFn: ({ signal }) => getRecords(appId, collection, query, signal),
    placeholderData: keepPreviousData,
  });
}
