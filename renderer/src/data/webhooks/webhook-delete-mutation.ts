// Deletes a webhook and its delivery log.
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export async function deleteWebhook(appId: string, id: string): Promise<void> {
  await workspaceApi(appId, `/webhooks/${enc(id)}`, { method: 'DELETE' });
}

export function useWebhookDeleteMutation(appId: string, options?: MutationOptions<void, string>) {
  return useWriteMutation((id: string) => deleteWebhook(appId, id), () => [keys.webhooks(appId)], options);
}
