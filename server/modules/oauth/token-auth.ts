// Requests made with an OAuth access token. A token for a workspace user is verified like any
// access token (its session is the grant's family); its `scope` claim then limits it exactly as
// an API key's scopes do, through the same table (api-keys/scopes.ts), on v1 and v2: the user's
// own rights still apply inside what the scopes open. A client_credentials token acts as the
// client, a principal of its own like an API key's (`oauthc_<client id>`).
import type { Request } from 'express';
import { ApiError } from '../../core/errors.js';
import type { AuthInfo } from '../caller.js';
import { sessionsStore, verifiedClaims, type TokenClaims } from '../auth/index.js';
import type { UserDoc } from '../users/index.js';
import { scopeNeeded } from '../api-keys/index.js';
import { clientPrincipalId, getClient } from './clients.js';
import type { FamilyDoc } from './families.js';

/** The role of a client_credentials token's principal (no powers of its own). */
export const OAUTH_CLIENT_ROLE = 'oauthclient';

const WORKSPACE_PREFIX = /^\/api(?:\/v2)?\/app\/[^/]+(?=\/|$)/;

/** Checks the request against a token's scopes; says whether the scope stands for an
 *  administrator's rights over its group. Throws 403 naming the missing scope. */
export function scopeCheck(req: Request, scopes: readonly string[]): { admin: boolean } {
  const need = scopeNeeded(req.method, req.path.replace(WORKSPACE_PREFIX, '') || '/');
  if ('refused' in need) throw ApiError.forbidden(need.refused.replace(/An API key|an API key/g, 'A scoped OAuth token'));
  if (need.scope === null) return { admin: false };
  if (!scopes.includes(need.scope)) throw new ApiError('FORBIDDEN', `This access token lacks the scope ${need.scope}`, { scope: need.scope });
  return { admin: need.admin };
}

export const scopesOf = (claims: TokenClaims): string[] => (typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : []);

/** A user's token with a `scope` claim: the scope check, then the user's own rights. */
export function scopedUserAuth(req: Request, auth: AuthInfo, claims: TokenClaims): AuthInfo {
  if (claims.scope === undefined) return auth;
  scopeCheck(req, scopesOf(claims));
  return auth;
}

/** A client_credentials token, tried when the token is not a user's: verified (signature,
 *  expiry, workspace), its grant live, its client still registered. Throws `otherwise` when the
 *  token is not a client's. */
export async function clientTokenAuth(req: Request, token: string, otherwise: unknown): Promise<AuthInfo> {
  let claims: Readonly<TokenClaims>;
  try { claims = verifiedClaims(req.ws, token); } catch { throw otherwise; }
  if (typeof claims.cid !== 'string' || claims.sub !== clientPrincipalId(claims.cid)) throw otherwise;
  const family = (await (await sessionsStore(req.ws)).get(claims.sid)) as FamilyDoc | undefined;
  if (!family || family.revoked || family.userId !== claims.sub) throw ApiError.unauthorized('Access token revoked');
  const client = await getClient(req.ws, claims.cid);
  if (!client) throw ApiError.unauthorized('OAuth client no longer exists');
  const { admin } = scopeCheck(req, scopesOf(claims));
  const user: UserDoc = { _id: client.principalId, email: '', name: client.name, role: OAUTH_CLIENT_ROLE, passwordHash: '', createdAt: client.createdAt, updatedAt: client.updatedAt };
  return { userId: client.principalId, role: OAUTH_CLIENT_ROLE, isAdmin: admin, sessionId: family._id, user };
}
