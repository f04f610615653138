// Creates a webhook (the answer carries its signing secret, once) or changes one.
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';
import type { Webhook } from '../types';

export interface WebhookSaveVariables { id?: string; body: Record<string, unknown> }

export function saveWebhook(appId: string, { id, body }: WebhookSaveVariables): Promise<Webhook> {
  return id
    ? workspaceApi<Webhook>(appId, `/webhooks/${enc(id)}`, { method: 'PATCH', body })
    : workspaceApi<Webhook>(appId, '/webhooks', { method: 'POST', body });
}

export function useWebhookSaveMutation(appId: string, options?: MutationOptions<Webhook, WebhookSaveVariables>) {
  return useWriteMutation((vars: WebhookSaveVariables) => saveWebhook(appId, vars), () => [keys.webhooks(appId)], options);
}
