import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import jwt from 'jsonwebtoken';
import { startTestServer, type TestServer } from '../../test/harness.js';

let t: TestServer;
let short: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  short = await startTestServer({ tokenTtl: 1, refreshTtl: 2 });
});
afterAll(async () => { await t.close(); await short.close(); });

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const parts = (token: string) => token.split('.');
const claims = (token: string) => JSON.parse(Buffer.from(parts(token)[1], 'base64url').toString());

async function signUp(server: TestServer, password = 'password-123') {
  const email = `u-${Math.random().toString(36).slice(2)}@example.com`;
  const res = await server.req('POST', '/auth/register', { token: null, body: { email, password } });
  expect(res.status).toBe(201);
  return { email, ...res.body as { token: string; refreshToken: string; user: { _id: string } } };
}

async function expect401(token: string, server = t) {
  const res = await server.req('GET', '/auth/me', { token });
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('UNAUTHORIZED');
  return res;
}

describe('access token verification', () => {
  it('refuses a token signed with alg none', async () => {
    const { token } = await signUp(t);
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${parts(token)[1]}.`;
    await expect401(none);
    const noneWithAdminRole = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims(token), role: 'admin' })}.`;
    await expect401(noneWithAdminRole);
  });

  it('refuses a tampered payload or signature', async () => {
    const { token } = await signUp(t);
    const [h, , s] = parts(token);
    await expect401(`${h}.${b64({ ...claims(token), role: 'admin' })}.${s}`);
    const flipped = s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.at(-1);
    await expect401(`${h}.${parts(token)[1]}.${flipped}`);
    await expect401('not-a-jwt');
    const malformed = await t.req('GET', '/auth/me', { headers: { authorization: 'Basic abc' }, token: null });
    expect(malformed.status).toBe(401);
  });

  it('refuses a token signed with another algorithm or key', async () => {
    const { token } = await signUp(t);
    const c = claims(token);
    await expect401(jwt.sign(c, 'guessed-secret', { algorithm: 'HS256' }));
    await expect401(jwt.sign(c, 'guessed-secret', { algorithm: 'HS512' }));
  });

  it('refuses a token of another workspace, even for the same user id and session', async () => {
    const created = await t.consoleReq('POST', '/workspaces', { _id: 'other', admin: { email: 'boss@other.test', password: 'password-123' } });
    expect(created.status).toBe(201);
    const login = await t.req('POST', '/auth/login', { token: null, body: { email: 'boss@other.test', password: 'password-123' } });
    expect(login.status).toBe(401); // users are per workspace
    const otherLogin = await fetch(`${t.url}/app/other/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'boss@other.test', password: 'password-123' }) });
    const otherToken = (await otherLogin.json()).token as string;
    expect(claims(otherToken).app).toBe('other');
    const inDemo = await expect401(otherToken);
    expect(inDemo.text).not.toMatch(/secret|key/i);
    const inOther = await fetch(`${t.url}/app/other/auth/me`, { headers: { authorization: `Bearer ${otherToken}` } });
    expect(inOther.status).toBe(200);
    // And the demo admin token is refused by the other workspace.
    const demoInOther = await fetch(`${t.url}/app/other/users`, { headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(demoInOther.status).toBe(401);
  });

  it('refuses the tokens of a deleted user', async () => {
    const u = await signUp(t);
    expect((await t.req('DELETE', `/users/${u.user._id}`)).status).toBe(204);
    await expect401(u.token);
    expect((await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: u.refreshToken } })).status).toBe(401);
  });

  it('ignores a stale bearer on the endpoints that do not act as the caller', async () => {
    const u = await signUp(t);
    await t.req('POST', '/auth/logout', { token: u.token });
    const relog = await t.req('POST', '/auth/login', { token: u.token, body: { email: u.email, password: 'password-123' } });
    expect(relog.status).toBe(200);
    const refreshed = await t.req('POST', '/auth/refresh', { token: u.token, body: { refreshToken: relog.body.refreshToken } });
    expect(refreshed.status).toBe(200);
    // Elsewhere a bad token stays a 401, even where anonymous access would be allowed.
    expect((await t.req('PUT', '/auth/me', { token: u.token, body: { name: 'x' } })).status).toBe(401);
    expect((await t.req('POST', '/auth/logout', { token: u.token })).status).toBe(401);
  });
});

describe('lifetimes', () => {
  // Time is what these tests are about, so they move the workspace's clock (which token checks
  // follow) instead of waiting for the machine's: frozen on a whole second (token times are in
  // seconds), advanced by hand.
  const clock = (method: string, path = '', body?: unknown) => short.consoleReq(method, `/workspaces/${short.workspace}/clock${path}`, body);
  const advance = async (ms: number) => expect((await clock('POST', '/advance', { ms })).status).toBe(200);
  beforeEach(async () => { expect((await clock('PUT', '', { now: '2030-01-01T00:00:00Z', frozen: true })).status).toBe(200); });
  afterEach(async () => { expect((await clock('DELETE')).status).toBe(200); });

  it('expires access tokens after tokenTtl, and refresh renews them', async () => {
    const u = await signUp(short);
    const c = claims(u.token);
    expect(c.exp - c.iat).toBe(1);
    expect((await short.req('GET', '/auth/me', { token: u.token })).status).toBe(200);
    await advance(999);
    expect((await short.req('GET', '/auth/me', { token: u.token })).status).toBe(200);
    await advance(1101);
    const expired = await expect401(u.token, short);
    expect(expired.body.error.message).toMatch(/expired/i);
    // The refresh token lives 2 s from its issue: already past too.
    expect((await short.req('POST', '/auth/refresh', { token: u.token, body: { refreshToken: u.refreshToken } })).status).toBe(401);
  });

  it('renews with a refresh token before it expires, then refuses it after', async () => {
    const u = await signUp(short);
    await advance(1100);
    const renewed = await short.req('POST', '/auth/refresh', { token: null, body: { refreshToken: u.refreshToken } });
    expect(renewed.status).toBe(200);
    expect((await short.req('GET', '/auth/me', { token: renewed.body.token })).status).toBe(200);
    await advance(2100);
    const late = await short.req('POST', '/auth/refresh', { token: null, body: { refreshToken: renewed.body.refreshToken } });
    expect(late.status).toBe(401);
    expect(late.body.error.message).toMatch(/expired/i);
  });
});
