// Sends a test event to a webhook; the attempt shows in its delivery log.
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export async function testWebhook(appId: string, id: string): Promise<void> {
  await workspaceApi(appId, `/webhooks/${enc(id)}/test`, { method: 'POST' });
}

export function useWebhookTestMutation(appId: string, id: string, options?: MutationOptions<void, void>) {
  return useWriteMutation(() => testWebhook(appId, id), () => [keys.deliveryLog(appId, id)], options);
}
