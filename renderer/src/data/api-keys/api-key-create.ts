// Makes an API key. Its value is in this answer only: this is a plain request, not a mutation
// hook, so that the value never sits in the query or mutation cache; the page keeps it in its
// own state until the dialog showing it closes. The list is refreshed by the caller
// (`invalidateApiKeys`).
import type { QueryClient } from '@tanstack/react-query';
import { workspaceApiV2 } from '../../api/v2';
import { keys } from '../keys';
import type { CreatedApiKey } from '../types';

export interface ApiKeyCreateVariables { name: string; scopes: string[]; expiresAt: string | null }

export async function createApiKey(appId: string, body: ApiKeyCreateVariables): Promise<CreatedApiKey> {
  return (await workspaceApiV2<CreatedApiKey>(appId, '/api-keys', { method: 'POST', body })).data;
}

export function invalidateApiKeys(qc: QueryClient, appId: string): Promise<void> {
  return qc.invalidateQueries({ queryKey: keys.apiKeys(appId) });
}
