// The ids of the workspace's collections (the first 100), for pickers.
import { useQuery } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { ListResponse } from '../types';

export async function getCollectionIds(appId: string): Promise<string[]> {
  const r = await workspaceApi<ListResponse<{ _id: string }>>(appId, '/database', { query: { limit: 100, fields: '_id' } });
  return r.data.map((c) => c._id);
}

export function useCollectionIdsQuery(appId: string, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ queryKey: keys.collectionPicker(appId), queryFn: () => getCollectionIds(appId), enabled });
}
