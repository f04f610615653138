// A page of the workspace's webhooks.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { ListResponse, Webhook } from '../types';

export function getWebhooks(appId: string, page: { limit: number; offset: number }): Promise<ListResponse<Webhook>> {
  return workspaceApi<ListResponse<Webhook>>(appId, '/webhooks', { query: page });
}

export function useWebhooksQuery(appId: string, page: { limit: number; offset: number }) {
  return useQuery({ queryKey: keys.webhooksPage(appId, page.offset), queryFn: () => getWebhooks(appId, page), placeholderData: keepPreviousData });
}
