// A page of the workspace's outbox (the emails it would have sent), newest first, fetched again
// every 5 s.
import { useQuery } from '@tanstack/react-query';
import { consoleApi, enc } from '../../api/client';
import { keys } from '../keys';
import type { Email, ListResponse } from '../types';

export function getOutbox(appId: string, page: { limit: number; offset: number }): Promise<ListResponse<Email>> {
  return consoleApi<ListResponse<Email>>(`/workspaces/${enc(appId)}/outbox`, { query: page });
}

export function useOutboxQuery(appId: string, page: { limit: number; offset: number }) {
  return useQuery({ queryKey: keys.outboxPage(appId, page.offset), queryFn: () => getOutbox(appId, page), refetchInterval: 5_000 });
}
