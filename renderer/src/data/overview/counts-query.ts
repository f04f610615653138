// How many collections, users, files... a workspace holds: one `limit=0` list request each.
import { useQuery } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { ListResponse } from '../types';

export function getCounts(appId: string, paths: string[]): Promise<number[]> {
  return Promise.all(paths.map(async (path) => (await workspaceApi<ListResponse<unknown>>(appId, path, { query: { limit: 0 } })).meta.total));
}

export function useCountsQuery(appId: string, paths: string[]) {
  return useQuery({ queryKey: keys.counts(appId), queryFn: () => getCounts(appId, paths) });
}
