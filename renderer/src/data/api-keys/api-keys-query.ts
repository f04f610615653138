// The workspace's API keys (v2 `/api-keys`), without their values.
import { useQuery } from '@tanstack/react-query';
import { workspaceApiV2 } from '../../api/v2';
import { keys } from '../keys';
import type { ApiKey } from '../types';

export async function getApiKeys(appId: string): Promise<ApiKey[]> {
  return (await workspaceApiV2<ApiKey[]>(appId, '/api-keys')).data;
}

export function useApiKeysQuery(appId: string) {
  return useQuery({ queryKey: keys.apiKeys(appId), queryFn: () => getApiKeys(appId) });
}
