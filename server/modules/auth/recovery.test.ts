import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

let t: TestServer;
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { await t.close(); });

async function signUp(password = 'password-123') {
  const email = `r-${Math.random().toString(36).slice(2)}@example.com`;
  const res = await t.req('POST', '/auth/register', { token: null, body: { email, password } });
  return { email, ...res.body };
}

const outbox = async (query = '') => (await t.consoleReq('GET', `/workspaces/demo/outbox${query}`)).body;

describe('password recovery', () => {
  it('answers 202 whether or not the email exists, and writes an email only for a real user', async () => {
    const before = (await outbox()).meta.total;
    const unknown = await t.req('POST', '/auth/forgot-password', { token: null, body: { email: 'nobody@example.com' } });
    expect(unknown.status).toBe(202);
    const u = await signUp();
    const known = await t.req('POST', '/auth/forgot-password', { token: null, body: { email: u.email.toUpperCase() } });
    expect(known.status).toBe(202);
    expect(known.body).toEqual(unknown.body);
    const box = await outbox();
    expect(box.meta.total).toBe(before + 1);
    expect(box.data[0]).toMatchObject({ type: 'password-reset', to: u.email, subject: expect.any(String), token: expect.stringMatching(/^hbp_/) });
    expect(box.data[0].text).toContain(box.data[0].token);
    const missing = await t.req('POST', '/auth/forgot-password', { token: null, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toMatchObject({ field: 'email', reason: 'required' });
  });

  it('resets the password with the token from the outbox, once, and ends every session', async () => {
    const u = await signUp();
    const second = await t.req('POST', '/auth/login', { token: null, body: { email: u.email, password: 'password-123' } });
    await t.req('POST', '/auth/forgot-password', { token: null, body: { email: u.email } });
    const email = (await outbox(`?filter[to]=${encodeURIComponent(u.email)}`)).data[0];
    expect(email.to).toBe(u.email);

    const short = await t.req('POST', '/auth/reset-password', { token: null, body: { token: email.token, password: 'short' } });
    expect(short.status).toBe(422);
    expect(short.body.error.details).toMatchObject({ field: 'password', reason: 'too_short' });

    const reset = await t.req('POST', '/auth/reset-password', { token: null, body: { token: email.token, password: 'new-password-1' } });
    expect(reset.status).toBe(204);
    for (const s of [u, second.body]) {
      expect((await t.req('GET', '/auth/me', { token: s.token })).status).toBe(401);
      expect((await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: s.refreshToken } })).status).toBe(401);
    }
    expect((await t.req('POST', '/auth/login', { token: null, body: { email: u.email, password: 'password-123' } })).status).toBe(401);
    expect((await t.req('POST', '/auth/login', { token: null, body: { email: u.email, password: 'new-password-1' } })).status).toBe(200);

    const again = await t.req('POST', '/auth/reset-password', { token: null, body: { token: email.token, password: 'third-password' } });
    expect(again.status).toBe(422);
    expect(again.body.error.details).toMatchObject({ field: 'token', reason: 'invalid' });
    expect((await t.req('POST', '/auth/login', { token: null, body: { email: u.email, password: 'new-password-1' } })).status).toBe(200);
  });

  it('refuses a made-up token', async () => {
    const res = await t.req('POST', '/auth/reset-password', { token: null, body: { token: 'hbp_made_up', password: 'password-123' } });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toMatchObject({ field: 'token', reason: 'invalid' });
  });

  it('stores only a hash of the token', async () => {
    const u = await signUp();
    await t.req('POST', '/auth/forgot-password', { token: null, body: { email: u.email } });
    const { token } = (await outbox()).data[0];
    const ws = t.srv.ctx.registry.require('demo');
    const stored = JSON.stringify(await (await ws.store('reset-tokens')).all());
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(token.slice(4));
    const sessions = JSON.stringify(await (await ws.store('sessions')).all());
    expect(sessions).not.toContain(u.refreshToken);
  });

  it('a password change invalidates outstanding reset tokens', async () => {
    const u = await signUp();
    await t.req('POST', '/auth/forgot-password', { token: null, body: { email: u.email } });
    const { token } = (await outbox()).data[0];
    await t.req('PUT', '/auth/change-password', { token: u.token, body: { currentPassword: 'password-123', newPassword: 'password-456' } });
    expect((await t.req('POST', '/auth/reset-password', { token: null, body: { token, password: 'password-789' } })).status).toBe(422);
  });
});

describe('outbox (console API)', () => {
  it('lists emails newest first with the list parameters, behind the console token', async () => {
    const u = await signUp();
    for (let i = 0; i < 3; i++) await t.req('POST', '/auth/forgot-password', { token: null, body: { email: u.email } });
    const box = await outbox(`?filter[to]=${encodeURIComponent(u.email)}&limit=2`);
    expect(box.meta).toEqual({ total: 3, limit: 2, offset: 0 });
    expect(box.data).toHaveLength(2);
    expect(box.data[0].createdAt > box.data[1].createdAt).toBe(true);
    const oldest = await outbox(`?filter[to]=${encodeURIComponent(u.email)}&sort=createdAt&limit=1`);
    expect(oldest.data[0].createdAt < box.data[1].createdAt).toBe(true);
    expect((await t.consoleReq('GET', '/workspaces/demo/outbox?limit=x')).status).toBe(400);
    expect((await fetch(`${t.url}/workspaces/demo/outbox`)).status).toBe(401);
    expect((await fetch(`${t.url}/workspaces/demo/outbox`, { headers: { authorization: `Bearer ${t.adminToken}` } })).status).toBe(401);
    expect((await t.consoleReq('GET', '/workspaces/nope/outbox')).status).toBe(404);
  });
});
