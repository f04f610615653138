// Deletes a field, view or index of a collection; the collection's definition is stale after it.
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';
import type { SchemaPart } from './schema-item-save-mutation';

export async function deleteSchemaItem(appId: string, collection: string, part: SchemaPart, id: string): Promise<void> {
  await workspaceApi(appId, `/database/${enc(collection)}/${part}/${enc(id)}`, { method: 'DELETE' });
}

export function useSchemaDeleteMutation(appId: string, collection: string, part: SchemaPart, options?: MutationOptions<void, string>) {
  return useWriteMutation((id: string) => deleteSchemaItem(appId, collection, part, id), () => [keys.collection(appId, collection)], options);
}
