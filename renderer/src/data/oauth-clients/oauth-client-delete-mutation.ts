// Deletes an OAuth client, which ends all its grants.
import { enc } from '../../api/client';
import { workspaceApiV2 } from '../../api/v2';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export async function deleteOAuthClient(appId: string, id: string): Promise<void> {
  await workspaceApiV2(appId, `/oauth/clients/${enc(id)}`, { method: 'DELETE' });
}

export function useOAuthClientDeleteMutation(appId: string, options?: MutationOptions<void, string>) {
  return useWriteMutation((id: string) => deleteOAuthClient(appId, id), () => [keys.oauthClients(appId)], options, { settled: true });
}
