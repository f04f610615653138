// Request authentication for the workspace API: reads the bearer token (if any) into req.auth
// (the guards handlers call are in ../caller.ts). A present but bad token is always a 401, even
// where anonymous access would be allowed.
import type { Request, RequestHandler } from 'express';
import type { AuthInfo } from '../caller.js';
import { ApiError } from '../../core/errors.js';
import { liveSession, verifyAccessToken, verifyAccessTokenNow, type SessionDoc } from './sessions.js';
import type { Workspace } from '../../storage/workspace.js';
import type { UserDoc } from '../users/index.js';
import { apiKeyAuth } from '../api-keys/index.js';
import { clientTokenAuth, scopedUserAuth } from '../oauth/index.js';

export function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw ApiError.unauthorized('Malformed Authorization header; use "Bearer <token>"');
  return m[1];
}

export async function authenticateToken(ws: Workspace, token: string): Promise<AuthInfo> {
  const { user, session } = verifyAccessTokenNow(ws, token) ?? await verifyAccessToken(ws, token);
  return authInfo(user, session);
}

/** A request's bearer token: a user's (limited by its OAuth scopes, if it has any) or, failing
 *  that, an OAuth client's (oauth/token-auth.ts). */
async function authenticateRequest(req: Request, token: string): Promise<AuthInfo> {
  let verified;
  try {
    verified = verifyAccessTokenNow(req.ws, token) ?? await verifyAccessToken(req.ws, token);
  } catch (err) {
    return clientTokenAuth(req, token, err);
  }
  return scopedUserAuth(req, authInfo(verified.user, verified.session), verified.claims);
}

/** Checks again that a caller signed in earlier is still signed in (a realtime socket asks
 *  before every frame): the same session rule as a request's (sessions.ts liveSession). Returns
 *  the caller with the user's current name and role, or throws the 401 a request would get. */
export async function recheckAuth(ws: Workspace, auth: AuthInfo): Promise<AuthInfo> {
  const { user, session } = await liveSession(ws, auth.sessionId, auth.userId);
  return user === auth.user ? auth : authInfo(user, session);
}

function authInfo(user: UserDoc, session: SessionDoc): AuthInfo {
  return {
    userId: user._id,
    role: user.role,
    isAdmin: user.role === 'admin',
    sessionId: session._id,
    ...(session.impersonatedBy ? { impersonatedBy: session.impersonatedBy } : {}),
    user,
  };
}

/** Endpoints that do not act as the caller: a stale token sent out of habit (an expired access
 *  token on /auth/refresh) is ignored there instead of blocking the very call that renews it.
 *  Logout is here so that a valid refresh token alone can still end a session. */
const TOKEN_OPTIONAL = /^\/auth\/(?:register|login|refresh|logout|forgot-password|reset-password)\/?$/;

/** Reads the bearer token into req.auth. `isConsoleToken` tells the console token apart, so
 *  that sending it here gets a 401 that says where it belongs instead of "Invalid access token". */
export function authenticate(isConsoleToken: (token: string) => boolean): RequestHandler {
  const refused = (req: Request, token: string, err: unknown): void => {
    if (TOKEN_OPTIONAL.test(req.path)) { req.auth = null; return; }
    if (isConsoleToken(token)) {
      throw ApiError.unauthorized(`This is the console token: it authorises the console API (/api/workspaces/...), not the workspace API. `
        + `Use an access token: sign in with POST /api/app/${req.ws.id}/auth/login, or mint an admin token with POST /api/workspaces/${req.ws.id}/token (console token) or \`homebase admin\``);
    }
    throw err;
  };
  // Without waiting a turn when the sessions and users stores are open (every request but the
  // first ones): the same checks and outcome, only without the promise chain.
  return (req, _res, next) => {
    // An API key: its own principal, within its scopes (api-keys/authenticate-key.ts).
    if (req.headers['x-api-key'] !== undefined) return apiKeyAuth(req, next);
    const token = bearerToken(req);
    if (!token) { req.auth = null; return next(); }
    let verified;
    try {
      verified = verifyAccessTokenNow(req.ws, token);
    } catch {
      verified = undefined; // a client's token, or a refusal: said by the slower path below
    }
    if (verified) {
      if (verified.claims.scope === undefined) { req.auth = authInfo(verified.user, verified.session); return next(); }
      try { req.auth = scopedUserAuth(req, authInfo(verified.user, verified.session), verified.claims); } catch (err) { return next(err); }
      return next();
    }
    return authenticateRequest(req, token).then((auth) => { req.auth = auth; }, (err: unknown) => refused(req, token, err)).then(() => next(), next);
  };
}
