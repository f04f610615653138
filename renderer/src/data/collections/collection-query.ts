// One collection with its fields, views and indexes; a collection that does not exist is a 404.
import { useQuery } from '@tanstack/react-query';
import { ApiError, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { CollectionDef, ListResponse } from '../types';

export async function getCollection(appId: string, collection: string): Promise<CollectionDef> {
  const r = await workspaceApi<ListResponse<CollectionDef>>(appId, '/database', { query: { 'filter[_id]': collection, limit: 1 } });
  if (!r.data[0]) throw new ApiError(404, 'NOT_FOUND', `No collection '${collection}' in workspace '${appId}'`);
  return r.data[0];
}

export function useCollectionQuery(appId: string, collection: string) {
  return useQuery({ queryKey: keys.collection(appId, collection), queryFn: () => getCollection(appId, collection) });
}
