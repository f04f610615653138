// A page of the workspace's collections.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { CollectionDef, ListResponse } from '../types';

export function getCollections(appId: string, page: { limit: number; offset: number }): Promise<ListResponse<CollectionDef>> {
  return workspaceApi<ListResponse<CollectionDef>>(appId, '/database', { query: page });
}

export function useCollectionsQuery(appId: string, page: { limit: number; offset: number }) {
  return useQuery({ queryKey: keys.collectionsPage(appId, page.offset), queryFn: () => getCollections(appId, page), placeholderData: keepPreviousData });
}
