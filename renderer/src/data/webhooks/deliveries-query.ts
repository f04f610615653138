// A page of one webhook's delivery log, fetched again every 2 s so that new attempts appear as
// they happen.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { Delivery, ListResponse } from '../types';

export function getDeliveries(appId: string, id: string, page: { limit: number; offset: number }): Promise<ListResponse<Delivery>> {
  return workspaceApi<ListResponse<Delivery>>(appId, `/webhooks/${enc(id)}/logs`, { query: page });
}

export function useDeliveriesQuery(appId: string, id: string, page: { limit: number; offset: number }) {
  return useQuery({
    queryKey: keys.deliveries(appId, id, page.offset),
    queryFn: () => getDeliveries(appId, id, page),
    refetchInterval: 2_000,
    placeholderData: keepPreviousData,
  });
}
