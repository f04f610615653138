// The labels of what reference, user and file values point to: one request per target (a
// collection, the users, the files) for up to 100 ids, kept 30 s.
import { useQueries } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { ListResponse } from '../types';

export interface RefLookup { key: string; path: string; ids: string[] }

export function getByIds(appId: string, path: string, ids: string[]): Promise<ListResponse<Record<string, unknown>>> {
  return workspaceApi<ListResponse<Record<string, unknown>>>(appId, path, { query: { 'filter[_id][$in]': ids.join(','), limit: 100 } });
}

export function useRefLabelsQueries(appId: string, lookups: RefLookup[]) {
  return useQueries({
    queries: lookups.map(({ key, path, ids }) => ({
      queryKey: keys.refLabels(appId, key, ids),
      staleTime: 30_000,
      queryFn: () => getByIds(appId, path, ids),
    })),
  });
}
