// The workspace's OAuth clients (v2 `/oauth/clients`), without their secrets.
import { useQuery } from '@tanstack/react-query';
import { workspaceApiV2 } from '../../api/v2';
import { keys } from '../keys';
import type { OAuthClient } from '../types';

export async function getOAuthClients(appId: string): Promise<OAuthClient[]> {
  return (await workspaceApiV2<OAuthClient[]>(appId, '/oauth/clients')).data;
}

export function useOAuthClientsQuery(appId: string) {
  return useQuery({ queryKey: keys.oauthClients(appId), queryFn: () => getOAuthClients(appId) });
}
