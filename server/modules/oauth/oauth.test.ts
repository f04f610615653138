// OAuth 2.0 over HTTP, driven by oauth4webapi (a spec-strict client): discovery from the RFC 8414
// metadata, the authorization code flow with PKCE through the sign-in and consent page (a GET of
// the page, its form posted with a user's credentials and approval, the redirect to a local
// callback read), the code exchanged, the token used within its scopes on v1 and v2 and refused
// beyond them, refresh rotation and reuse detection, client_credentials, revocation, and the
// refusals RFC 6749 asks for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { startTestServer, type TestServer, type TestUser } from '../../test/harness.js';
import { makeCollection, v2Client } from '../../v2/v2-client.js';

let t: TestServer;
let v2: ReturnType<typeof v2Client>;
let issuer: URL;
let as: oauth.AuthorizationServer;
let alice: TestUser;
const CALLBACK = 'http://127.0.0.1:9/callback';
const insecure = { [oauth.allowInsecureRequests]: true };

beforeAll(async () => {
  t = await startTestServer();
  v2 = v2Client(t);
  await makeCollection(t, 'notes');
  alice = await t.user('alice');
  issuer = new URL(`${t.url}/v2/app/demo/oauth`);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
});
afterAll(async () => { await t?.close(); });

async function newClient(body: Record<string, unknown>): Promise<{ _id: string; clientSecret?: string }> {
  const res = await v2('POST', '/oauth/clients', { body });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

/** GETs the consent page of an authorization request and returns its form's fields. */
async function consentForm(url: URL): Promise<{ page: Response; html: string; fields: URLSearchParams }> {
  const page = await fetch(url, { redirect: 'manual' });
  const html = await page.text();
  const fields = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.set(m[1], m[2].replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#39;/g, "'"));
  return { page, html, fields };
}

/** The whole front channel: authorization URL, consent page, form posted, callback read. */
async function authorize(client: oauth.Client, scope: string, user: TestUser = alice, verifier = oauth.generateRandomCodeVerifier()) {
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', CALLBACK);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', scope);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  const { page, html, fields } = await consentForm(url);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
  for (const s of scope.split(' ')) expect(html).toContain(`<code>${s}</code>`);
  fields.set('email', user.email);
  fields.set('password', user.password);
  fields.set('allowed', 'true');
  const posted = await fetch(new URL('authorize', url), { method: 'POST', body: fields, redirect: 'manual' });
  expect(posted.status).toBe(303);
  const callback = new URL(posted.headers.get('location')!);
  expect(`${callback.origin}${callback.pathname}`).toBe(CALLBACK);
  const params = oauth.validateAuthResponse(as, client, callback, state);
  return { params, verifier };
}

async function codeFlow(client: oauth.Client, scope: string) {
  const { params, verifier } = await authorize(client, scope);
  const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, CALLBACK, verifier, insecure);
  return oauth.processAuthorizationCodeResponse(as, client, res);
}

const bearer = (token: string) => ({ token });

describe('metadata and clients', () => {
  it('publishes RFC 8414 metadata at the issuer\'s path too', async () => {
    expect(as).toMatchObject({ issuer: issuer.href, code_challenge_methods_supported: ['S256'], token_endpoint: `${issuer.href}/token`, revocation_endpoint: `${issuer.href}/revoke` });
    const here = await fetch(`${issuer.href}/.well-known/oauth-authorization-server`);
    expect(here.status).toBe(200);
    expect((await here.json()).issuer).toBe(issuer.href);
  });

  it('an admin registers clients (secret shown once, stored hashed), lists them without secrets, deletes one', async () => {
    const made = await newClient({ name: 'cli', redirectUris: [CALLBACK], scopes: ['database:read'], confidential: true });
    expect(made.clientSecret).toMatch(/^hbs_[A-Za-z0-9_-]{43}$/);
    const list = await v2('GET', '/oauth/clients');
    expect(list.status).toBe(200);
    expect(list.body.data.find((c: { _id: string }) => c._id === made._id)).toMatchObject({ name: 'cli', confidential: true, scopes: ['database:read'], redirectUris: [CALLBACK] });
    expect(list.text).not.toContain(made.clientSecret!.slice(4));
    expect(list.text).not.toMatch(/secret/i);
    const bad = await v2('POST', '/oauth/clients', { body: { name: 'x', redirectUris: ['http://evil.example/cb'], scopes: ['database:read'] } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.field).toBe('redirectUris.0');
    const badScope = await v2('POST', '/oauth/clients', { body: { name: 'x', redirectUris: [CALLBACK], scopes: ['everything'] } });
    expect(badScope.status).toBe(422);
    expect((await v2('GET', '/oauth/clients', { token: alice.token })).status).toBe(403);
    expect((await v2('DELETE', `/oauth/clients/${made._id}`)).status).toBe(204);
    expect((await v2('DELETE', `/oauth/clients/${made._id}`)).status).toBe(404);
  });
});

describe('authorization code with PKCE', () => {
  let client: oauth.Client;
  beforeAll(async () => {
    client = { client_id: (await newClient({ name: 'spa', redirectUris: [CALLBACK], scopes: ['database:read', 'database:write', 'users:read'], confidential: false }))._id };
  });

  it('issues a scoped token used on v1 and v2 within its scopes and refused beyond (403 naming the scope)', async () => {
    const tokens = await codeFlow(client, 'database:read');
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.scope).toBe('database:read');
    expect(tokens.refresh_token).toMatch(/^hbo_/);
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: alice._id, app: 'demo', scope: 'database:read', cid: client.client_id });
    expect(JSON.parse(Buffer.from(tokens.access_token.split('.')[0], 'base64url').toString()).alg).toBe('HS256');

    expect((await t.req('GET', '/database/notes', bearer(tokens.access_token))).status).toBe(200);
    expect((await v2('GET', '/database/notes', bearer(tokens.access_token))).status).toBe(200);
    const write = await t.req('POST', '/database/notes', { ...bearer(tokens.access_token), body: { title: 'no' } });
    expect(write.status).toBe(403);
    expect(write.body.error.details.scope).toBe('database:write');
    const v2write = await v2('POST', '/database/notes', { ...bearer(tokens.access_token), body: { title: 'no' } });
    expect(v2write.status).toBe(403);
    expect(v2write.body.error.details.scope).toBe('database:write');
    expect((await t.req('GET', '/users', bearer(tokens.access_token))).body.error.details.scope).toBe('users:read');
    expect((await t.req('GET', '/auth/me', bearer(tokens.access_token))).status).toBe(403);

    const both = await codeFlow(client, 'database:read database:write');
    const made = await t.req('POST', '/database/notes', { ...bearer(both.access_token), body: { title: 'by oauth' } });
    expect(made.status).toBe(201);
    expect(made.body._owner).toBe(alice._id);
  });

  it('a code is single use; a wrong PKCE verifier is invalid_grant', async () => {
    const { params, verifier } = await authorize(client, 'database:read');
    const wrong = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, CALLBACK, oauth.generateRandomCodeVerifier(), insecure);
    const err = await oauth.processAuthorizationCodeResponse(as, client, wrong).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(oauth.ResponseBodyError);
    expect((err as oauth.ResponseBodyError).error).toBe('invalid_grant');
    expect((err as oauth.ResponseBodyError).status).toBe(400);

    const again = await authorize(client, 'database:read');
    const ok = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), again.params, CALLBACK, again.verifier, insecure);
    await oauth.processAuthorizationCodeResponse(as, client, ok);
    const reused = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), again.params, CALLBACK, again.verifier, insecure);
    expect(((await oauth.processAuthorizationCodeResponse(as, client, reused).catch((e: unknown) => e)) as oauth.ResponseBodyError).error).toBe('invalid_grant');
    void verifier;
  });

  it('rotates refresh tokens; reusing a rotated one revokes the family', async () => {
    const first = await codeFlow(client, 'database:read');
    const r1 = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), first.refresh_token!, insecure));
    expect(r1.refresh_token).not.toBe(first.refresh_token);
    expect(r1.scope).toBe('database:read');
    expect((await t.req('GET', '/database/notes', bearer(r1.access_token))).status).toBe(200);
    const reuse = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), first.refresh_token!, insecure);
    const err = await oauth.processRefreshTokenResponse(as, client, reuse).catch((e: unknown) => e);
    expect((err as oauth.ResponseBodyError).error).toBe('invalid_grant');
    // The whole family is gone: the newest access and refresh tokens too.
    expect((await t.req('GET', '/database/notes', bearer(r1.access_token))).status).toBe(401);
    const after = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), r1.refresh_token!, insecure);
    expect(((await oauth.processRefreshTokenResponse(as, client, after).catch((e: unknown) => e)) as oauth.ResponseBodyError).error).toBe('invalid_grant');
    // A v1 refresh never takes an OAuth refresh token.
    expect((await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: r1.refresh_token } })).status).toBe(401);
  });

  it('revocation (RFC 7009) ends the grant; an unknown token is still 200', async () => {
    const tokens = await codeFlow(client, 'database:read');
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token!, insecure));
    expect((await t.req('GET', '/database/notes', bearer(tokens.access_token))).status).toBe(401);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), 'nothing-of-ours', insecure));
  });

  it('deleting a client ends the grants it holds', async () => {
    const doomed: oauth.Client = { client_id: (await newClient({ name: 'doomed', redirectUris: [CALLBACK], scopes: ['database:read'], confidential: false }))._id };
    const tokens = await codeFlow(doomed, 'database:read');
    expect((await t.req('GET', '/database/notes', bearer(tokens.access_token))).status).toBe(200);
    expect((await v2('DELETE', `/oauth/clients/${doomed.client_id}`)).status).toBe(204);
    expect((await t.req('GET', '/database/notes', bearer(tokens.access_token))).status).toBe(401);
    const refresh = await oauth.refreshTokenGrantRequest(as, doomed, oauth.None(), tokens.refresh_token!, insecure);
    expect(refresh.status).toBe(401);
  });

  it('never redirects to an unregistered redirect_uri or for an unknown client; refuses plain PKCE and a public client without PKCE', async () => {
    const base = new URL(as.authorization_endpoint!);
    const q = (extra: Record<string, string>) => { const u = new URL(base); for (const [k, v] of Object.entries({ response_type: 'code', state: 's1', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256', ...extra })) u.searchParams.set(k, v); return u; };
    for (const u of [q({ client_id: client.client_id, redirect_uri: 'http://127.0.0.1:9/elsewhere' }), q({ client_id: 'nosuchclient', redirect_uri: CALLBACK })]) {
      const res = await fetch(u, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      const posted = await fetch(base, { method: 'POST', body: new URLSearchParams({ ...Object.fromEntries(u.searchParams), email: alice.email, password: alice.password, allowed: 'true' }), redirect: 'manual' });
      expect(posted.status).toBe(400);
      expect(posted.headers.get('location')).toBeNull();
    }
    const plain = await fetch(q({ client_id: client.client_id, redirect_uri: CALLBACK, code_challenge_method: 'plain' }), { redirect: 'manual' });
    expect(plain.status).toBe(303);
    const to = new URL(plain.headers.get('location')!);
    expect(to.searchParams.get('error')).toBe('invalid_request');
    expect(to.searchParams.get('state')).toBe('s1');
    const none = q({ client_id: client.client_id, redirect_uri: CALLBACK });
    none.searchParams.delete('code_challenge');
    none.searchParams.delete('code_challenge_method');
    expect(new URL((await fetch(none, { redirect: 'manual' })).headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const scope = await fetch(q({ client_id: client.client_id, redirect_uri: CALLBACK, scope: 'automation:admin' }), { redirect: 'manual' });
    expect(new URL(scope.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
  });

  it('a wrong password shows the page again (401) without redirecting; denial redirects access_denied', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({ client_id: client.client_id, redirect_uri: CALLBACK, response_type: 'code', scope: 'database:read', code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' })) url.searchParams.set(k, v);
    const { fields } = await consentForm(url);
    const wrong = await fetch(url, { method: 'POST', body: new URLSearchParams({ ...Object.fromEntries(fields), email: alice.email, password: 'not-the-password', allowed: 'true' }), redirect: 'manual' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('location')).toBeNull();
    expect(await wrong.text()).toContain('Wrong email or password');
    const denied = await fetch(url, { method: 'POST', body: new URLSearchParams({ ...Object.fromEntries(fields), allowed: 'false' }), redirect: 'manual' });
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
  });
});

describe('client credentials', () => {
  it('a confidential client acts as itself within its scopes; bad secrets are invalid_client (401); revocation works', async () => {
    const made = await newClient({ name: 'backend', redirectUris: [], scopes: ['database:read', 'database:write'], confidential: true });
    const client: oauth.Client = { client_id: made._id };
    const auth = oauth.ClientSecretBasic(made.clientSecret!);
    const tokens = await oauth.processClientCredentialsResponse(as, client, await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams({ scope: 'database:write' }), insecure));
    expect(tokens.scope).toBe('database:write');
    expect(tokens.refresh_token).toBeUndefined();
    const made1 = await v2('POST', '/database/notes', { ...bearer(tokens.access_token), body: { title: 'by client' } });
    expect(made1.status).toBe(201);
    expect(made1.body.data._owner).toBe(`oauthc_${made._id}`);
    const read = await t.req('GET', '/database/notes', bearer(tokens.access_token));
    expect(read.status).toBe(403);
    expect(read.body.error.details.scope).toBe('database:read');

    const bad = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic('hbs_wrong'), new URLSearchParams(), insecure);
    const err = await oauth.processClientCredentialsResponse(as, client, bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect(bad.status).toBe(401);

    const scope = await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams({ scope: 'users:admin' }), insecure);
    expect(((await oauth.processClientCredentialsResponse(as, client, scope).catch((e: unknown) => e)) as oauth.ResponseBodyError).error).toBe('invalid_scope');

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, tokens.access_token, insecure));
    expect((await t.req('POST', '/database/notes', { ...bearer(tokens.access_token), body: { title: 'late' } })).status).toBe(401);
  });

  it('a public client cannot use client_credentials; an unknown grant type is unsupported_grant_type', async () => {
    const pub = await newClient({ name: 'pub', redirectUris: [CALLBACK], scopes: ['database:read'], confidential: false });
    const res = await fetch(as.token_endpoint!, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: pub._id }) });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toBe('invalid_client');
    const conf = await newClient({ name: 'c2', redirectUris: [], scopes: ['database:read'], confidential: true });
    const odd = await fetch(as.token_endpoint!, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: conf._id, client_secret: conf.clientSecret! }) });
    expect(odd.status).toBe(400);
    expect(await odd.json()).toMatchObject({ error: 'unsupported_grant_type' });
    const noGrant = await fetch(as.token_endpoint!, { method: 'POST', body: new URLSearchParams({ client_id: conf._id, client_secret: conf.clientSecret! }) });
    expect(noGrant.status).toBe(400);
    expect((await noGrant.json()).error).toBe('invalid_request');
  });
});

describe('the consent page\'s sign-in', () => {
  it('shares /auth/login\'s failed-login limit: past it the page answers 429 and /auth/login does too', async () => {
    const own = await startTestServer({ loginRateLimit: 2 });
    try {
      const bob = await own.user('bob');
      const pub = await fetch(`${own.url}/v2/app/demo/oauth/clients`, { method: 'POST', headers: { authorization: `Bearer ${own.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'p', redirectUris: [CALLBACK], scopes: ['database:read'] }) });
      const clientId = (await pub.json()).data._id;
      const url = `${own.url}/v2/app/demo/oauth/authorize`;
      const fields = { client_id: clientId, redirect_uri: CALLBACK, response_type: 'code', code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()), code_challenge_method: 'S256', email: bob.email, password: 'wrong-password', allowed: 'true' };
      for (let i = 0; i < 2; i++) expect((await fetch(url, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' })).status).toBe(401);
      const limited = await fetch(url, { method: 'POST', body: new URLSearchParams({ ...fields, password: bob.password }), redirect: 'manual' });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(limited.headers.get('location')).toBeNull();
      expect((await own.req('POST', '/auth/login', { token: null, body: { email: bob.email, password: bob.password } })).status).toBe(429);
    } finally {
      await own.close();
    }
  });
});
