// Revokes an API key: requests made with it are refused from then on.
import { enc } from '../../api/client';
import { workspaceApiV2 } from '../../api/v2';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export async function revokeApiKey(appId: string, id: string): Promise<void> {
  await workspaceApiV2(appId, `/api-keys/${enc(id)}`, { method: 'DELETE' });
}

export function useApiKeyRevokeMutation(appId: string, options?: MutationOptions<void, string>) {
  return useWriteMutation((id: string) => revokeApiKey(appId, id), () => [keys.apiKeys(appId)], options, { settled: true });
}
