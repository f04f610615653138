// Deletes a collection with all its records, fields, views and indexes.
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export async function deleteCollection(appId: string, id: string): Promise<void> {
  await workspaceApi(appId, `/database/${enc(id)}`, { method: 'DELETE' });
}

export function useCollectionDeleteMutation(appId: string, options?: MutationOptions<void, string>) {
  return useWriteMutation((id: string) => deleteCollection(appId, id), () => [keys.collections(appId), keys.counts(appId)], options);
}
