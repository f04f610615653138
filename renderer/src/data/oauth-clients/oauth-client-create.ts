// Makes an OAuth client. A confidential client's secret is in this answer only: a plain request,
// not a mutation hook, so that the secret never sits in the query or mutation cache; the page
// keeps it in its own state until the dialog showing it closes. The list is refreshed by the
// caller (`invalidateOAuthClients`).
import type { QueryClient } from '@tanstack/react-query';
import { workspaceApiV2 } from '../../api/v2';
import { keys } from '../keys';
import type { CreatedOAuthClient } from '../types';

export interface OAuthClientCreateVariables { name: string; redirectUris: string[]; scopes: string[]; confidential: boolean }

export async function createOAuthClient(appId: string, body: OAuthClientCreateVariables): Promise<CreatedOAuthClient> {
  return (await workspaceApiV2<CreatedOAuthClient>(appId, '/oauth/clients', { method: 'POST', body })).data;
}

export function invalidateOAuthClients(qc: QueryClient, appId: string): Promise<void> {
  return qc.invalidateQueries({ queryKey: keys.oauthClients(appId) });
}
