// The records pages in the cache: a saved record put in place on the page shown (the row keeps
// its position, the grid does not jump), or all pages of a collection made stale (a record
// created or deleted, here or elsewhere).
import type { QueryClient } from '@tanstack/react-query';
import { keys } from '../keys';
import type { ListResponse, Rec } from '../types';

export function putRecordInPage(qc: QueryClient, appId: string, collection: string, query: URLSearchParams, saved: Rec): void {
  qc.setQueryData<ListResponse<Rec>>(keys.recordsPage(appId, collection, query.toString()),
    (old) => old && { ...old, data: old.data.map((r) => (r._id === saved._id ? saved : r)) });
}

export function invalidateRecords(qc: QueryClient, appId: string, collection: string): Promise<void> {
  return qc.invalidateQueries({ queryKey: keys.records(appId, collection) });
}
