// Creates a record, or changes some of its fields; the answer is the record as stored.
import { enc, workspaceApi } from '../../api/client';
import { useWriteMutation, type MutationOptions } from '../mutation';
import type { Rec } from '../types';

export function saveRecord(appId: string, collection: string, id: string | undefined, body: Record<string, unknown>): Promise<Rec> {
  return id
    ? workspaceApi<Rec>(appId, `/database/${enc(collection)}/${enc(id)}`, { method: 'PATCH', body })
    : workspaceApi<Rec>(appId, `/database/${enc(collection)}`, { method: 'POST', body });
}

/** The caller puts the answer in place (`records-cache.ts`): a changed row keeps its position. */
export function useRecordSaveMutation(appId: string, collection: string, id: string | undefined, options?: MutationOptions<Rec, Record<string, unknown>>) {
  return useWriteMutation((body: Record<string, unknown>) => saveRecord(appId, collection, id, body), () => [], options);
}
