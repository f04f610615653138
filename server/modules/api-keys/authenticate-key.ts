// A request made with `X-API-Key`: the key is checked (unknown, revoked or expired → 401) and
// the scope the request needs is checked here, once for every route of v1 and v2 (scopes.ts):
// a key never goes beyond its scopes (403 FORBIDDEN with `details.scope`). The key then acts
// as a signed-in principal of its own (`key_<id>`): `private` rules let it in, the records it
// creates are its own. It is an administrator only inside the administrators' groups its
// scopes open (users:read / users:admin for /users, automation:admin for /webhooks, /scenarios,
// /credentials), never for collections' definitions or other users' `only-user` records.
import type { NextFunction, Request } from 'express';
import { ApiError } from '../../core/errors.js';
import type { AuthInfo } from '../caller.js';
import type { UserDoc } from '../users/index.js';
import { verifyApiKey, type ApiKey } from './service.js';
import { scopeNeeded } from './scopes.js';

/** The role a key's principal carries (no powers of its own). */
export const API_KEY_ROLE = 'apikey';

// The path within the workspace: the record GET fast path sees the whole URL.
const WORKSPACE_PREFIX = /^\/api(?:\/v2)?\/app\/[^/]+(?=\/|$)/;

export function apiKeyAuth(req: Request, next: NextFunction): void {
  try {
    if (req.headers.authorization !== undefined) {
      throw ApiError.badRequest('Send either an Authorization bearer token or an X-API-Key, not both');
    }
    const header = req.headers['x-api-key'];
    if (typeof header !== 'string' || header === '') throw ApiError.unauthorized('Invalid API key');
    const key = verifyApiKey(req.ws, header);
    if (key instanceof Promise) {
      key.then((k) => { req.auth = authorised(req, k); }).then(() => next(), next);
      return;
    }
    req.auth = authorised(req, key);
  } catch (err) {
    next(err);
    return;
  }
  next();
}

function authorised(req: Request, key: ApiKey): AuthInfo {
  const need = scopeNeeded(req.method, req.path.replace(WORKSPACE_PREFIX, '') || '/');
  if ('refused' in need) throw ApiError.forbidden(need.refused);
  let admin = false;
  if (need.scope !== null) {
    if (!key.scopes.includes(need.scope)) {
      throw new ApiError('FORBIDDEN', `This API key lacks the scope ${need.scope}`, { scope: need.scope });
    }
    admin = need.admin;
  }
  return principalOf(key, admin);
}

// One principal per key and rights (an administrator of the group or not), made once. Not
// server state: a memo of an immutable value per immutable key object.
const principals = new WeakMap<ApiKey, { plain?: AuthInfo; admin?: AuthInfo }>();

function principalOf(key: ApiKey, admin: boolean): AuthInfo {
  let made = principals.get(key);
  if (!made) { made = {}; principals.set(key, made); }
  const slot = admin ? 'admin' : 'plain';
  const cached = made[slot];
  if (cached) return cached;
  const user: UserDoc = {
    _id: key.principalId, email: '', name: key.name, role: API_KEY_ROLE, passwordHash: '', createdAt: key.createdAt, updatedAt: key.updatedAt,
  };
  const auth: AuthInfo = Object.freeze({ userId: key.principalId, role: API_KEY_ROLE, isAdmin: admin, sessionId: key.principalId, user: Object.freeze(user), apiKey: Object.freeze({ id: key._id, scopes: key.scopes }) });
  made[slot] = auth;
  return auth;
}
