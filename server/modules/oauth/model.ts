// The model @node-oauth/oauth2-server runs its grants over (authorization_code with PKCE,
// client_credentials, refresh_token), made per request for one workspace: clients from its
// `oauth_clients` store, single-use authorization codes (kept as hashes) in `oauth_codes`, and
// each grant a token family (families.ts). Access tokens are the workspace's own HS256 JWTs with
// a `scope` claim and the client's id (`cid`). Expiry follows the workspace's clock.
import { createHash, randomBytes } from 'node:crypto';
import type { AuthorizationCodeModel, ClientCredentialsModel, RefreshTokenModel, Client, User, AuthorizationCode, Token, RefreshToken } from '@node-oauth/oauth2-server';
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import { signAccessToken } from '../auth/index.js';
import type { UserDoc } from '../users/index.js';
import { authenticateClient, getClient, type OAuthClient } from './clients.js';
import { checkRefreshToken, newRefreshTokenFor, rotateAway, setRefreshToken, startFamily, type FamilyDoc } from './families.js';
import { OAUTH_CLIENT_ROLE } from './token-auth.js';

export const OAUTH_CODES_STORE = 'oauth_codes';

export interface OAuthSettings { tokenTtl: number; refreshTtl: number; codeTtl: number }

/** What the library calls a user: a workspace user, or the client itself (client_credentials). */
interface Principal extends User { id: string; role: string; clientPrincipal?: boolean; family?: Promise<FamilyDoc> }

function formDecoded(value: string): string | undefined {
  try { return decodeURIComponent(value.replace(/\+/g, ' ')); } catch { return undefined; }
}

const codeHash = (code: string) => createHash('sha256').update(code).digest('base64url');

function libClient(c: OAuthClient, s: OAuthSettings): Client {
  return {
    id: c._id, redirectUris: c.redirectUris,
    grants: c.confidential ? ['authorization_code', 'refresh_token', 'client_credentials'] : ['authorization_code', 'refresh_token'],
    accessTokenLifetime: s.tokenTtl, refreshTokenLifetime: s.refreshTtl, record: c,
  };
}

/** The workspace's time as the library's (real) clock reads it: a date that lies as far from
 *  the real now as `iso` lies from the workspace's now. */
const onRealClock = (ws: Workspace, iso: string) => new Date(Date.now() + (Date.parse(iso) - ws.now()));

export type OAuthModel = AuthorizationCodeModel & ClientCredentialsModel & RefreshTokenModel;

/** `confidentialMustAuthenticate`: at the token and revocation endpoints a confidential client
 *  is known only with its secret; at the authorization endpoint no secret is sent. */
export function oauthModel(ctx: AppContext, ws: Workspace, s: OAuthSettings, confidentialMustAuthenticate: boolean): OAuthModel {
  const familyOf = (user: Principal, client: Client, scope: string[]): Promise<FamilyDoc> => {
    user.family ??= startFamily(ws, user.id, client.id, scope, user.clientPrincipal ? s.tokenTtl : s.refreshTtl);
    return user.family;
  };
  return {
    async getClient(rawId: string, rawSecret: string | null) {
      // HTTP Basic credentials are form-urlencoded first (RFC 6749 2.3.1); the library hands
      // them over as sent. Ids and secrets never hold '%' or '+', so decoding is exact.
      const clientId = formDecoded(rawId);
      const clientSecret = rawSecret ? formDecoded(rawSecret) : null;
      if (clientId === undefined || clientSecret === undefined) return false;
      const client = clientSecret ? await authenticateClient(ws, clientId, clientSecret) : await getClient(ws, clientId);
      if (!client) return false;
      if (!clientSecret && client.confidential && confidentialMustAuthenticate) return false;
      return libClient(client, s);
    },

    async validateScope(_user: User, client: Client, scope?: string[]) {
      const allowed = (client.record as OAuthClient).scopes as string[];
      if (!scope || scope.length === 0) return [...allowed];
      return scope.every((x) => allowed.includes(x)) ? [...new Set(scope)] : false;
    },

    async generateAccessToken(client: Client, user: User, scope: string[]) {
      const p = user as Principal;
      const family = await familyOf(p, client, scope);
      return signAccessToken(ws, { sub: p.id, app: ws.id, role: p.role, sid: family._id, scope: scope.join(' '), cid: client.id }, s.tokenTtl);
    },
    async generateRefreshToken(client: Client, user: User, scope: string[]) {
      return newRefreshTokenFor((await familyOf(user as Principal, client, scope))._id);
    },
    async generateAuthorizationCode() { return randomBytes(32).toString('base64url'); },

    async saveAuthorizationCode(code: Pick<AuthorizationCode, 'authorizationCode' | 'expiresAt' | 'redirectUri' | 'scope' | 'codeChallenge' | 'codeChallengeMethod'>, client: Client, user: User) {
      const p = user as Principal;
      await (await ws.store(OAUTH_CODES_STORE)).insert({
        _id: codeHash(code.authorizationCode), clientId: client.id, userId: p.id, redirectUri: code.redirectUri, scope: code.scope ?? [],
        codeChallenge: code.codeChallenge ?? null, codeChallengeMethod: code.codeChallengeMethod ?? null,
        expiresAt: new Date(ws.now() + s.codeTtl * 1000).toISOString(), createdAt: ws.nowIso(), updatedAt: ws.nowIso(),
      });
      return { ...code, client, user };
    },
    async getAuthorizationCode(code: string) {
      const doc = await (await ws.store(OAUTH_CODES_STORE)).get(codeHash(code));
      if (!doc) return false;
      const client = await getClient(ws, doc.clientId as string);
      const user = (await (await ws.store('users')).get(doc.userId as string)) as UserDoc | undefined;
      if (!client || !user) return false;
      const found: AuthorizationCode = {
        authorizationCode: code, expiresAt: onRealClock(ws, doc.expiresAt as string), redirectUri: doc.redirectUri as string, scope: doc.scope as string[],
        client: libClient(client, s), user: { id: user._id, role: user.role } satisfies Principal,
        ...(doc.codeChallenge ? { codeChallenge: doc.codeChallenge as string, codeChallengeMethod: doc.codeChallengeMethod as string } : {}),
      };
      return found;
    },
    /** Single use: the first exchange removes the code, any later one finds nothing. */
    async revokeAuthorizationCode(code: AuthorizationCode) {
      return (await ws.store(OAUTH_CODES_STORE)).remove(codeHash(code.authorizationCode));
    },

    async saveToken(token: Token, client: Client, user: User) {
      if (token.refreshToken) {
        const family = await familyOf(user as Principal, client, token.scope ?? []);
        await setRefreshToken(ws, family._id, token.refreshToken, s.refreshTtl);
      }
      return { ...token, client, user };
    },
    async getAccessToken() { return false; }, // bearer tokens are checked by the workspace's own token check

    async getRefreshToken(refreshToken: string) {
      const family = await checkRefreshToken(ctx, ws, refreshToken);
      if (!family) return false;
      const client = await getClient(ws, family.oauthClient);
      const user = (await (await ws.store('users')).get(family.userId)) as UserDoc | undefined;
      if (!client || !user) return false;
      const found: RefreshToken = {
        refreshToken, refreshTokenExpiresAt: onRealClock(ws, family.expiresAt), scope: family.oauthScope,
        client: libClient(client, s), user: { id: user._id, role: user.role, family: Promise.resolve(family) } satisfies Principal,
      };
      return found;
    },
    async revokeToken(token: RefreshToken | Token) {
      return token.refreshToken ? rotateAway(ctx, ws, token.refreshToken) : false;
    },

    async getUserFromClient(client: Client) {
      const c = client.record as OAuthClient;
      return { id: c.principalId, role: OAUTH_CLIENT_ROLE, clientPrincipal: true } satisfies Principal;
    },
  };
}
