// Creates or changes a field, view or index of a collection; the collection's definition (which
// holds all three) is stale after it.
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions, type Staleness } from '../mutation';

export type SchemaPart = 'fields' | 'views' | 'indexes';

/** Creates (`id` absent) or changes a field, view or index of `collection`. */
export function saveSchemaItem<T = unknown>(appId: string, collection: string, part: SchemaPart, id: string | undefined, body: Record<string, unknown>): Promise<T> {
  return id
    ? workspaceApi<T>(appId, `/database/${enc(collection)}/${part}/${enc(id)}`, { method: 'PATCH', body })
    : workspaceApi<T>(appId, `/database/${enc(collection)}/${part}`, { method: 'POST', body });
}

export function useSchemaSaveMutation<T = unknown>(appId: string, collection: string, part: SchemaPart, id: string | undefined, options?: MutationOptions<T, Record<string, unknown>>, staleness?: Staleness) {
  return useWriteMutation((body: Record<string, unknown>) => saveSchemaItem<T>(appId, collection, part, id, body), () => [keys.collection(appId, collection)], options, staleness);
}
