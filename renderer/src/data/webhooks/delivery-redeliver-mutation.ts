// Sends an attempt's event again (same event id, signed anew); the answer is the new attempt.
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';
import type { Delivery } from '../types';

export function redeliver(appId: string, webhookId: string, deliveryId: string): Promise<Delivery> {
  return workspaceApi<Delivery>(appId, `/webhooks/${enc(webhookId)}/logs/${enc(deliveryId)}/redeliver`, { method: 'POST' });
}

export function useRedeliverMutation(appId: string, webhookId: string, options?: MutationOptions<Delivery, Delivery>) {
  return useWriteMutation((d: Delivery) => redeliver(appId, webhookId, d._id), () => [keys.deliveryLog(appId, webhookId)], options);
}
