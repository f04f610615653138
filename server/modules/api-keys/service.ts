// API keys of a workspace: made by an administrator, shown once, kept only as the SHA-256 hash
// of their secret part, removed (revoked) at once. A key is `hbk_<id>_<secret>`: the id finds
// the stored key in one lookup by id, the 256-bit secret is compared by hash in constant time.
// A fast hash is right for a random secret of that size (nothing to guess); a slow password
// hash would only make every request slow. The keys live in the workspace's `api_keys` store,
// read on every request (on PostgreSQL, from the database: a revocation holds in every process
// at once).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Workspace } from '../../storage/workspace.js';
import type { Doc } from '../../storage/query.js';
import type { Store } from '../../storage/store.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { NewApiKey } from './schemas.js';
import type { ApiKeyScope } from './scopes.js';

/** The store of a workspace's keys (left out of exports, snapshots and forks; see docs/v2.md). */
export const API_KEYS_STORE = 'api_keys';
const PREFIX = 'hbk_';
const ID_LENGTH = 16;

export interface ApiKey {
  _id: string;
  name: string;
  scopes: ApiKeyScope[];
  expiresAt: string | null;
  /** The principal the key acts as: `_owner` of the records it creates. */
  principalId: string;
  /** The key's visible start, to tell keys apart (`hbk_<id>`). */
  prefix: string;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

interface ApiKeyDoc extends ApiKey { secretHash: string; [key: string]: unknown }

export const principalIdOf = (keyId: string) => `key_${keyId}`;
const hashSecret = (secret: string) => createHash('sha256').update(secret).digest();

function keysStore(ws: Workspace): Promise<Store> { return ws.store(API_KEYS_STORE); }

export function publicApiKey(doc: Doc | ApiKeyDoc): ApiKey {
  const d = doc as ApiKeyDoc;
  return {
    _id: d._id, name: d.name, scopes: d.scopes, expiresAt: d.expiresAt ?? null, principalId: d.principalId, prefix: d.prefix,
    createdBy: d.createdBy ?? null, createdAt: d.createdAt, updatedAt: d.updatedAt,
  };
}

export async function listApiKeys(ws: Workspace): Promise<ApiKey[]> {
  const all = await (await keysStore(ws)).all();
  return all.map(publicApiKey).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a._id.localeCompare(b._id));
}

export async function getApiKey(ws: Workspace, id: string): Promise<ApiKey> {
  const doc = await (await keysStore(ws)).get(id);
  if (!doc) throw ApiError.notFound('API key', id);
  return publicApiKey(doc);
}

/** Makes a key; the answer is the only place its value ever appears. */
export async function createApiKey(ws: Workspace, input: NewApiKey, createdBy: string | null): Promise<ApiKey & { key: string }> {
  if (input.expiresAt && Date.parse(input.expiresAt) <= ws.now()) {
    throw ApiError.invalidField('expiresAt', 'invalid', 'expiresAt must be in the future (by the workspace\'s clock)');
  }
  const id = newId(ID_LENGTH);
  const secret = randomBytes(32).toString('base64url');
  const now = ws.nowIso();
  const doc: ApiKeyDoc = {
    _id: id, name: input.name, scopes: [...new Set(input.scopes)], expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
    principalId: principalIdOf(id), prefix: `${PREFIX}${id}`, createdBy, createdAt: now, updatedAt: now,
    secretHash: hashSecret(secret).toString('base64url'),
  };
  await (await keysStore(ws)).insert(doc);
  return { ...publicApiKey(doc), key: `${PREFIX}${id}_${secret}` };
}

/** Revokes a key: it is gone, and the next request made with it is a 401. */
export async function revokeApiKey(ws: Workspace, id: string): Promise<void> {
  if (!(await (await keysStore(ws)).remove(id))) throw ApiError.notFound('API key', id);
}

const UNKNOWN = 'Invalid API key';

/** The stored key for a presented value, checked (secret, expiry); a 401 otherwise. Answers at
 *  once (no promise) when the store is open in this process; else a promise. */
export function verifyApiKey(ws: Workspace, value: string): ApiKey | Promise<ApiKey> {
  const m = /^hbk_([A-Za-z0-9]{16})_([A-Za-z0-9_-]{43})$/.exec(value.trim());
  if (!m) throw ApiError.unauthorized(UNKNOWN);
  const [, id, secret] = m;
  const open = ws.openStore(API_KEYS_STORE);
  if (open?.getNow) return checked(ws, open.getNow(id), secret);
  return keysStore(ws).then((store) => store.get(id)).then((doc) => checked(ws, doc, secret));
}

// Keys whose secret this process already checked, by the stored document they matched: the
// embedded stores never change a document in place (a write replaces it), so the same object
// still holding the same secret needs no second hash. A revoked key's document is gone, so it
// is never found here; expiry is checked on every request. Not server state: a memo of the
// check of an immutable document, held as long as the document lives.
const checkedKeys = new WeakMap<Doc, { secret: string; key: ApiKey; expiresAt: number }>();

function checked(ws: Workspace, doc: Doc | undefined, secret: string): ApiKey {
  const hit = doc && checkedKeys.get(doc);
  let entry: { secret: string; key: ApiKey; expiresAt: number };
  if (hit && hit.secret === secret) {
    entry = hit;
  } else {
    const d = doc as ApiKeyDoc | undefined;
    const given = hashSecret(secret);
    const stored = d ? Buffer.from(d.secretHash, 'base64url') : undefined;
    if (!d || !stored || stored.length !== given.length || !timingSafeEqual(stored, given)) throw ApiError.unauthorized(UNKNOWN);
    entry = { secret, key: publicApiKey(d), expiresAt: d.expiresAt ? Date.parse(d.expiresAt) : Infinity };
    checkedKeys.set(d, entry);
  }
  if (entry.expiresAt <= ws.now()) throw ApiError.unauthorized('API key expired');
  return entry.key;
}
