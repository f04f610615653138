// Deletes a secret.
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export async function deleteCredential(appId: string, id: string): Promise<void> {
  await workspaceApi(appId, `/credentials/${enc(id)}`, { method: 'DELETE' });
}

export function useCredentialDeleteMutation(appId: string, options?: MutationOptions<void, string>) {
  return useWriteMutation((id: string) => deleteCredential(appId, id), () => [keys.credentials(appId)], options);
}
