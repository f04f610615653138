// A page of the workspace's request log, newest first, with the list's filter parameters. The
// live tail (api/request-tail.ts) adds to the first page with `addToRequestsPage`.
import { keepPreviousData, useQuery, type QueryClient } from '@tanstack/react-query';
import { consoleApi, enc } from '../../api/client';
import { keys } from '../keys';
import type { ListResponse, RequestEntry } from '../types';

export type RequestsQuery = Record<string, string | number | undefined>;

export function getRequests(appId: string, query: RequestsQuery): Promise<ListResponse<RequestEntry>> {
  return consoleApi<ListResponse<RequestEntry>>(`/workspaces/${enc(appId)}/requests`, { query });
}

export function useRequestsQuery(appId: string, query: RequestsQuery) {
  return useQuery({ queryKey: keys.requestsPage(appId, query), queryFn: () => getRequests(appId, query), placeholderData: keepPreviousData });
}

/** A request just served, at the top of the page (which keeps `limit` entries), once. */
export function addToRequestsPage(qc: QueryClient, appId: string, query: RequestsQuery, entry: RequestEntry, limit: number): void {
  qc.setQueryData<ListResponse<RequestEntry>>(keys.requestsPage(appId, query), (old) => {
    if (!old || old.data.some((e) => e._id === entry._id)) return old;
    return { ...old, data: [entry, ...old.data].slice(0, limit), meta: { ...old.meta, total: old.meta.total + 1 } };
  });
}

export function invalidateRequests(qc: QueryClient, appId: string): Promise<void> {
  return qc.invalidateQueries({ queryKey: keys.requests(appId) });
}
