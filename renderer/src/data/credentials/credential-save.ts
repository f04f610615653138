// Creates a secret, or changes one (a new value only when given). The value is write-only: a
// plain request, not a mutation hook, so that it never sits in the mutation cache. The list is
// refreshed by the caller (`invalidateCredentials`).
import type { QueryClient } from '@tanstack/react-query';
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';

export type CredentialBody = Record<string, string>;

export async function saveCredential(appId: string, id: string | undefined, body: CredentialBody): Promise<void> {
  await (id
    ? workspaceApi(appId, `/credentials/${enc(id)}`, { method: 'PATCH', body })
    : workspaceApi(appId, '/credentials', { method: 'POST', body }));
}

export function invalidateCredentials(qc: QueryClient, appId: string): Promise<void> {
  return qc.invalidateQueries({ queryKey: keys.credentials(appId) });
}
