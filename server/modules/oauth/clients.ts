// OAuth clients of a workspace: registered by an administrator with their redirect URIs and the
// scopes they may ask for (the API keys' scope table). A confidential client gets a secret,
// shown once and kept only as its SHA-256 hash (a 256-bit random secret needs no slow hash).
// Clients live in the workspace's `oauth_clients` store, on either driver.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import type { Doc } from '../../storage/query.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { API_KEY_SCOPES, type ApiKeyScope } from '../api-keys/index.js';
import { revokeSession, sessionsStore } from '../auth/index.js';

export const OAUTH_CLIENTS_STORE = 'oauth_clients';

/** A redirect URI: absolute, no fragment (RFC 6749 3.1.2); http only for a loopback host. */
const RedirectUri = z.string().max(2000).refine((s) => {
  let u: URL;
  try { u = new URL(s); } catch { return false; }
  if (u.hash !== '' || s.includes('#')) return false;
  if (u.protocol === 'https:') return true;
  if (u.protocol === 'http:') return ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
  return /^[a-z][a-z0-9+.-]*:$/.test(u.protocol) && u.protocol !== 'javascript:' && u.protocol !== 'data:';
}, 'an absolute URI without a fragment (http only for localhost)');

export const NewOAuthClientBody = z.object({
  name: z.string().trim().min(1).max(200),
  redirectUris: z.array(RedirectUri).max(20).default([]),
  scopes: z.array(z.enum(API_KEY_SCOPES)).min(1).max(API_KEY_SCOPES.length),
  confidential: z.boolean().default(false),
}).strict();
export type NewOAuthClient = z.infer<typeof NewOAuthClientBody>;

export interface OAuthClient {
  _id: string;
  name: string;
  redirectUris: string[];
  scopes: ApiKeyScope[];
  confidential: boolean;
  /** The principal a client_credentials token acts as (`_owner` of what it creates). */
  principalId: string;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}
interface OAuthClientDoc extends OAuthClient { secretHash: string | null; [key: string]: unknown }

const hashSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest();
export const clientPrincipalId = (id: string) => `oauthc_${id}`;
const store = (ws: Workspace) => ws.store(OAUTH_CLIENTS_STORE);

export function publicClient(doc: Doc | OAuthClientDoc): OAuthClient {
  const d = doc as OAuthClientDoc;
  return { _id: d._id, name: d.name, redirectUris: d.redirectUris, scopes: d.scopes, confidential: d.confidential, principalId: d.principalId, createdBy: d.createdBy ?? null, createdAt: d.createdAt, updatedAt: d.updatedAt };
}

export async function createClient(ws: Workspace, input: NewOAuthClient, createdBy: string | null): Promise<OAuthClient & { clientSecret?: string }> {
  if (!input.confidential && input.redirectUris.length === 0) {
    throw ApiError.invalidField('redirectUris', 'required', 'A public client needs at least one redirect URI (it can only use the authorization code flow)');
  }
  const id = newId(16);
  const secret = input.confidential ? `hbs_${randomBytes(32).toString('base64url')}` : undefined;
  const now = ws.nowIso();
  const doc: OAuthClientDoc = {
    _id: id, name: input.name, redirectUris: [...new Set(input.redirectUris)], scopes: [...new Set(input.scopes)], confidential: input.confidential,
    principalId: clientPrincipalId(id), createdBy, createdAt: now, updatedAt: now, secretHash: secret ? hashSecret(secret).toString('base64url') : null,
  };
  await (await store(ws)).insert(doc);
  return { ...publicClient(doc), ...(secret ? { clientSecret: secret } : {}) };
}

export async function listClients(ws: Workspace): Promise<OAuthClient[]> {
  return (await (await store(ws)).all()).map(publicClient).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a._id.localeCompare(b._id));
}

export async function getClient(ws: Workspace, id: string): Promise<OAuthClient | undefined> {
  if (typeof id !== 'string' || !/^[A-Za-z0-9]{1,64}$/.test(id)) return undefined;
  const doc = await (await store(ws)).get(id);
  return doc ? publicClient(doc) : undefined;
}

/** The client when `secret` is its secret (constant-time compare); undefined otherwise. */
export async function authenticateClient(ws: Workspace, id: string, secret: string): Promise<OAuthClient | undefined> {
  if (typeof id !== 'string' || !/^[A-Za-z0-9]{1,64}$/.test(id)) return undefined;
  const doc = (await (await store(ws)).get(id)) as OAuthClientDoc | undefined;
  if (!doc?.secretHash) return undefined;
  const stored = Buffer.from(doc.secretHash, 'base64url');
  const given = hashSecret(secret);
  return stored.length === given.length && timingSafeEqual(stored, given) ? publicClient(doc) : undefined;
}

/** Deletes a client; every grant it holds (users' tokens and its own) ends at once. */
export async function deleteClient(ctx: AppContext, ws: Workspace, id: string): Promise<void> {
  if (!(await (await store(ws)).remove(id))) throw ApiError.notFound('OAuth client', id);
  for (const grant of await (await sessionsStore(ws)).findBy('oauthClient', id)) await revokeSession(ctx, ws, grant._id);
}
