// The OAuth 2.0 endpoints of a workspace at `/api/v2/app/{app_id}/oauth/`: `authorize` (the
// authorization code flow with PKCE through a sign-in and consent page), `token`
// (authorization_code, client_credentials, refresh_token with rotation), `revoke` (RFC 7009)
// and the server metadata (RFC 8414). The grants run in @node-oauth/oauth2-server over the
// workspace's stores (model.ts). Errors are RFC 6749's `{ error, error_description }`; a
// request whose client or redirect URI is not registered gets an error page, never a redirect.
// The library is loaded on the first grant, not at start (a start need not load what it serves).
import express, { Router, type Express, type Request, type RequestHandler, type Response } from 'express';
import type OAuth2ServerType from '@node-oauth/oauth2-server';
import type { AppContext } from '../context.js';
import { ApiError, toApiError } from '../../core/errors.js';
import { normalizeEmail } from '../users/index.js';
import { checkCredentials } from '../auth/index.js';
import { limiterOf } from '../auth/index.js';
import { revokeSession, verifiedClaims } from '../auth/index.js';
import { API_KEY_SCOPES } from '../api-keys/index.js';
import { authenticateClient, getClient, type OAuthClient } from './clients.js';
import { oauthModel, type OAuthSettings } from './model.js';
import { familyOfRefreshToken, getFamily } from './families.js';
import { sendConsentPage, sendErrorPage } from './consent-page.js';
import { afterFirstAdmin } from '../workspaces/index.js';

/** How long an authorization code lives (seconds, by the workspace's clock). */
export const CODE_TTL = 60;
const GRANTS = ['authorization_code', 'client_credentials', 'refresh_token'];

let library: Promise<typeof OAuth2ServerType> | undefined;
/** @node-oauth/oauth2-server (its server class, with Request, Response and OAuthError on it). */
const oauthLibrary = () => (library ??= import('@node-oauth/oauth2-server').then((m) => m.default));
const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

const oauthError = (res: Response, status: number, error: string, description: string, headers: Record<string, string> = {}) => {
  res.status(status).set({ 'Cache-Control': 'no-store', Pragma: 'no-cache', ...headers }).json({ error, error_description: description });
};

export const issuerOf = (req: Request) => `${req.protocol}://${req.get('host')}/api/v2/app/${req.ws.id}/oauth`;

export function mountOAuth(app: Express, ctx: AppContext): void {
  const settings = (): OAuthSettings => ({ tokenTtl: ctx.config.tokenTtl, refreshTtl: ctx.config.refreshTtl, codeTtl: CODE_TTL });
  const router = Router({ mergeParams: true });
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 });
  const workspace: RequestHandler = (req, res, next) => {
    req.ws = ctx.registry.require((req.params as { appId: string }).appId);
    req.ws.assertAvailable();
    res.set('Cache-Control', 'no-store');
    afterFirstAdmin(ctx, req.ws, next);
  };

  const metadata: RequestHandler = (req, res) => {
    const issuer = issuerOf(req);
    res.json({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      revocation_endpoint: `${issuer}/revoke`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes_supported: [...API_KEY_SCOPES],
    });
  };
  router.get('/.well-known/oauth-authorization-server', metadata);

  /** The client and redirect URI of an authorization request, or the error page's reason. */
  async function clientAndRedirect(req: Request, p: Record<string, string | undefined>): Promise<{ client: OAuthClient; redirectUri: string } | { error: string; description: string }> {
    const client = p.client_id ? await getClient(req.ws, p.client_id) : undefined;
    if (!client) return { error: 'invalid_client', description: p.client_id ? 'Unknown client_id' : 'Missing parameter: client_id' };
    const redirectUri = p.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
    if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
      return { error: 'invalid_request', description: p.redirect_uri ? 'redirect_uri is not registered for this client' : 'Missing parameter: redirect_uri' };
    }
    return { client, redirectUri };
  }

  /** Problems told to the client at its redirect URI (RFC 6749 4.1.2.1), before the page. */
  function requestProblem(client: OAuthClient, p: Record<string, string | undefined>): [string, string] | undefined {
    if (p.response_type !== 'code') return ['unsupported_response_type', 'Only response_type=code is supported'];
    if (p.code_challenge_method === 'plain') return ['invalid_request', 'code_challenge_method "plain" is not allowed; use "S256"'];
    if (p.code_challenge_method !== undefined && p.code_challenge_method !== 'S256') return ['invalid_request', 'Unsupported code_challenge_method'];
    if (!p.code_challenge && !client.confidential) return ['invalid_request', 'A public client must send a PKCE code_challenge (S256)'];
    if (p.code_challenge && !/^[A-Za-z0-9._~-]{43,128}$/.test(p.code_challenge)) return ['invalid_request', 'Invalid code_challenge'];
    const scopes = (p.scope ?? '').split(' ').filter(Boolean);
    const unknown = scopes.find((s) => !client.scopes.includes(s as never));
    if (unknown) return ['invalid_scope', `The client may not ask for the scope ${unknown}`];
    return undefined;
  }

  function redirectWithError(res: Response, redirectUri: string, state: string | undefined, error: string, description: string): void {
    const u = new URL(redirectUri);
    u.searchParams.set('error', error);
    u.searchParams.set('error_description', description);
    if (state) u.searchParams.set('state', state);
    res.redirect(303, u.href);
  }

  const params = (source: Record<string, unknown>): Record<string, string | undefined> => {
    const out: Record<string, string | undefined> = {};
    for (const k of AUTHORIZE_PARAMS) {
      const v = source[k];
      if (typeof v === 'string') out[k] = v;
    }
    return out;
  };

  async function authorizeRequest(req: Request, res: Response, source: Record<string, unknown>) {
    // A parameter given twice (or as a list) is an invalid request, not a guess at one of them.
    if (AUTHORIZE_PARAMS.some((k) => source[k] !== undefined && typeof source[k] !== 'string')) {
      sendErrorPage(res, 400, 'invalid_request', 'A parameter was given more than once');
      return undefined;
    }
    const p = params(source);
    const found = await clientAndRedirect(req, p);
    if ('error' in found) { sendErrorPage(res, 400, found.error, found.description); return undefined; }
    const problem = requestProblem(found.client, p);
    if (problem) { redirectWithError(res, found.redirectUri, p.state, ...problem); return undefined; }
    const scopes = (p.scope ?? '').split(' ').filter(Boolean);
    const view = {
      workspace: req.ws.id, clientName: found.client.name, scopes: scopes.length ? [...new Set(scopes)] : found.client.scopes,
      params: Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as Record<string, string>,
      redirectOrigin: new URL(found.redirectUri).origin,
    };
    return { ...found, p, view };
  }

  router.get('/authorize', async (req, res) => {
    const r = await authorizeRequest(req, res, req.query as Record<string, unknown>);
    if (r) sendConsentPage(res, r.view);
  });

  router.post('/authorize', form, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const r = await authorizeRequest(req, res, body);
    if (!r) return;
    if (body.allowed !== 'true') { redirectWithError(res, r.redirectUri, r.p.state, 'access_denied', 'The user denied the request'); return; }
    const email = typeof body.email === 'string' ? body.email : '';
    const password = typeof body.password === 'string' ? body.password : '';
    let user;
    try {
      if (!email || !password) throw ApiError.unauthorized('Invalid email or password');
      user = await checkCredentials(ctx, req.ws, limiterOf(ctx), normalizeEmail(email), password);
    } catch (thrown) {
      // On PostgreSQL the shared limiter's 429 comes as a storage failure: the same mapping.
      const err = toApiError(thrown);
      if (err.code !== 'UNAUTHORIZED' && err.code !== 'RATE_LIMITED') throw thrown;
      const limited = err.code === 'RATE_LIMITED';
      if (limited) res.set(err.headers ?? {});
      sendConsentPage(res, { ...r.view, error: limited ? 'Too many failed attempts; try again later' : 'Wrong email or password', email }, limited ? 429 : 401);
      return;
    }

    const OAuth2Server = await oauthLibrary();
    const { OAuthError, Request: OAuthRequest, Response: OAuthResponse } = OAuth2Server;
    const server = new OAuth2Server({ model: oauthModel(ctx, req.ws, settings(), false), allowEmptyState: true, authorizationCodeLifetime: CODE_TTL });
    const request = new OAuthRequest({ method: 'POST', headers: req.headers as Record<string, string>, query: {}, body: { ...r.view.params, redirect_uri: r.redirectUri } });
    const response = new OAuthResponse({ headers: {} });
    try {
      await server.authorize(request, response, { authenticateHandler: { handle: () => ({ id: user._id, role: user.role }) } });
    } catch (err) {
      // The client and redirect URI were checked above: a failure here goes back to the client.
      const e = err instanceof OAuthError ? err : undefined;
      redirectWithError(res, r.redirectUri, r.p.state, e?.name ?? 'server_error', e && e.name !== 'server_error' ? e.message : 'The authorization server failed');
      return;
    }
    res.redirect(303, response.get('location') as string);
  });

  router.post('/token', form, async (req, res) => {
    const grant = (req.body as Record<string, unknown> | undefined)?.grant_type;
    if (typeof grant === 'string' && grant !== '' && !GRANTS.includes(grant)) {
      oauthError(res, 400, 'unsupported_grant_type', `The grant type ${grant} is not supported`);
      return;
    }
    const OAuth2Server = await oauthLibrary();
    const { OAuthError, Request: OAuthRequest, Response: OAuthResponse } = OAuth2Server;
    const server = new OAuth2Server({ model: oauthModel(ctx, req.ws, settings(), true) });
    const request = new OAuthRequest({ method: 'POST', headers: req.headers as Record<string, string>, query: {}, body: req.body ?? {} });
    const response = new OAuthResponse({ headers: {} });
    try {
      await server.token(request, response, {
        requireClientAuthentication: { authorization_code: false, refresh_token: false },
        alwaysIssueNewRefreshToken: true,
        accessTokenLifetime: ctx.config.tokenTtl,
        refreshTokenLifetime: ctx.config.refreshTtl,
      });
    } catch (err) {
      const e = err instanceof OAuthError ? err : undefined;
      if (!e || e.name === 'server_error') { oauthError(res, 500, 'server_error', 'The authorization server failed'); return; }
      const status = e.name === 'invalid_client' ? 401 : e.code === 401 ? 401 : 400;
      oauthError(res, status, e.name, e.message, status === 401 ? { 'WWW-Authenticate': 'Basic realm="oauth"' } : {});
      return;
    }
    res.status(200).set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json(response.body);
  });

  router.post('/revoke', form, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const creds = clientCredentials(req, body);
    if ('error' in creds) { oauthError(res, 400, 'invalid_request', creds.error); return; }
    const client = creds.secret !== undefined ? await authenticateClient(req.ws, creds.id, creds.secret) : await getClient(req.ws, creds.id);
    if (!client || (client.confidential && creds.secret === undefined)) {
      oauthError(res, 401, 'invalid_client', 'Client authentication failed', { 'WWW-Authenticate': 'Basic realm="oauth"' });
      return;
    }
    if (typeof body.token !== 'string' || body.token === '') { oauthError(res, 400, 'invalid_request', 'Missing parameter: token'); return; }
    // RFC 7009: an unknown or foreign token is answered 200 all the same.
    const family = await familyOfToken(req, body.token);
    if (family && family.client === client._id) await revokeSession(ctx, req.ws, family.id);
    res.status(200).set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).end();
  });

  router.all(['/authorize', '/token', '/revoke', '/.well-known/oauth-authorization-server'], (req, res) => {
    res.set('Allow', req.path === '/authorize' ? 'GET, POST' : req.path === '/.well-known/oauth-authorization-server' ? 'GET' : 'POST');
    oauthError(res, 405, 'invalid_request', `${req.method} is not allowed here`);
  });

  // An error of the workspace's (unknown workspace, one being restored) in the API's shape;
  // anything else is the RFC's server_error, with nothing of it shown.
  router.use(((err, _req, res, next) => {
    if (err instanceof ApiError) { next(err); return; }
    if ((err as { type?: string }).type === 'entity.too.large') { oauthError(res, 413, 'invalid_request', 'Request body too large'); return; }
    if ((err as { status?: number }).status === 400) { oauthError(res, 400, 'invalid_request', 'Malformed request body'); return; }
    oauthError(res, 500, 'server_error', 'The authorization server failed');
  }) as express.ErrorRequestHandler);

  app.use('/api/v2/app/:appId/oauth', workspace, router);
  // RFC 8414's own well-known location for an issuer with a path.
  app.get('/.well-known/oauth-authorization-server/api/v2/app/:appId/oauth', workspace, metadata);
}

function clientCredentials(req: Request, body: Record<string, unknown>): { id: string; secret?: string } | { error: string } {
  const header = req.headers.authorization;
  if (header) {
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    const decoded = m ? Buffer.from(m[1], 'base64').toString('utf8') : '';
    const at = decoded.indexOf(':');
    if (at < 0) return { error: 'Malformed Authorization header' };
    try {
      return { id: decodeURIComponent(decoded.slice(0, at).replace(/\+/g, ' ')), secret: decodeURIComponent(decoded.slice(at + 1).replace(/\+/g, ' ')) };
    } catch {
      return { error: 'Malformed Authorization header' };
    }
  }
  if (typeof body.client_id !== 'string' || body.client_id === '') return { error: 'Missing client authentication' };
  return { id: body.client_id, ...(typeof body.client_secret === 'string' ? { secret: body.client_secret } : {}) };
}

/** The grant (family) a refresh or access token belongs to, and its client. */
async function familyOfToken(req: Request, token: string): Promise<{ id: string; client: string } | undefined> {
  const fromRefresh = familyOfRefreshToken(token);
  if (fromRefresh) {
    const family = await getFamily(req.ws, fromRefresh);
    return family ? { id: family._id, client: family.oauthClient } : undefined;
  }
  try {
    const claims = verifiedClaims(req.ws, token);
    if (typeof claims.cid !== 'string') return undefined;
    const family = await getFamily(req.ws, claims.sid);
    return family ? { id: family._id, client: family.oauthClient } : undefined;
  } catch {
    return undefined;
  }
}
