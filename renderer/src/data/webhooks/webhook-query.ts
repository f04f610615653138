// One webhook.
import { useQuery } from '@tanstack/react-query';
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { Webhook } from '../types';

export function getWebhook(appId: string, id: string): Promise<Webhook> {
  return workspaceApi<Webhook>(appId, `/webhooks/${enc(id)}`);
}

export function useWebhookQuery(appId: string, id: string) {
  return useQuery({ queryKey: keys.webhook(appId, id), queryFn: () => getWebhook(appId, id) });
}
