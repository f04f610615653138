// Deletes a user (their sessions end; records they own stay).
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export async function deleteUser(appId: string, id: string): Promise<void> {
  await workspaceApi(appId, `/users/${enc(id)}`, { method: 'DELETE' });
}

export function useUserDeleteMutation(appId: string, options?: MutationOptions<void, string>) {
  return useWriteMutation((id: string) => deleteUser(appId, id), () => [keys.users(appId), keys.counts(appId)], options);
}
