import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

let t: TestServer;
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { await t.close(); });

const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
let n = 0;
const freshEmail = () => `user${++n}-${Date.now()}@example.com`;

async function register(body: Record<string, unknown> = {}) {
  const email = freshEmail();
  const res = await t.req('POST', '/auth/register', { token: null, body: { email, password: 'password-123', name: 'Ann', ...body } });
  return { email, res };
}

describe('register', () => {
  it('creates a user with role user and answers a login result', async () => {
    const { email, res } = await register({ company: 'Acme' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ token: expect.any(String), refreshToken: expect.any(String), user: expect.objectContaining({ email, name: 'Ann', role: 'user', company: 'Acme' }) });
    expect(Object.keys(res.body.user).sort()).toEqual(['_id', 'company', 'createdAt', 'email', 'name', 'role', 'updatedAt']);
    expect(res.text).not.toMatch(/passwordHash|password-123/);
    const c = claims(res.body.token);
    expect(c).toMatchObject({ sub: res.body.user._id, app: 'demo', role: 'user', sid: expect.any(String) });
    expect(c.exp - c.iat).toBe(900);
    const me = await t.req('GET', '/auth/me', { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(res.body.user);
  });

  it('stores the email in lower case and refuses a duplicate with 409', async () => {
    const email = freshEmail();
    const first = await t.req('POST', '/auth/register', { token: null, body: { email: email.toUpperCase(), password: 'password-123' } });
    expect(first.status).toBe(201);
    expect(first.body.user.email).toBe(email);
    const dup = await t.req('POST', '/auth/register', { token: null, body: { email, password: 'password-456' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('CONFLICT');
  });

  it('validates the body: missing email, short password, bad format, read-only role', async () => {
    const missing = await t.req('POST', '/auth/register', { token: null, body: { password: 'password-123' } });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'email', reason: 'required' } });
    const short = await t.req('POST', '/auth/register', { token: null, body: { email: freshEmail(), password: 'short' } });
    expect(short.status).toBe(422);
    expect(short.body.error.details).toMatchObject({ field: 'password', reason: 'too_short' });
    const format = await t.req('POST', '/auth/register', { token: null, body: { email: 'not-an-email', password: 'password-123' } });
    expect(format.body.error.details).toMatchObject({ field: 'email', reason: 'format' });
    const role = await t.req('POST', '/auth/register', { token: null, body: { email: freshEmail(), password: 'password-123', role: 'admin' } });
    expect(role.status).toBe(422);
    expect(role.body.error.details).toMatchObject({ field: 'role', reason: 'read_only' });
    const long = await t.req('POST', '/auth/register', { token: null, body: { email: freshEmail(), password: 'é'.repeat(40) } });
    expect(long.body.error.details).toMatchObject({ field: 'password', reason: 'too_long' });
  });

  it('publishes user.created without the hash', async () => {
    const events: any[] = [];
    const off = t.srv.ctx.bus.subscribe((e) => { events.push(e); });
    const { res } = await register();
    off();
    const created = events.find((e) => e.type === 'user.created');
    expect(created).toMatchObject({ app: 'demo', data: { _id: res.body.user._id, role: 'user' } });
    expect(JSON.stringify(created)).not.toMatch(/passwordHash|password-123/);
  });
});

describe('login', () => {
  it('signs in, and answers the same 401 for a wrong password and an unknown email', async () => {
    const { email } = await register();
    const ok = await t.req('POST', '/auth/login', { token: null, body: { email, password: 'password-123' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ token: expect.any(String), refreshToken: expect.any(String), user: expect.objectContaining({ email }) });
    const upper = await t.req('POST', '/auth/login', { token: null, body: { email: email.toUpperCase(), password: 'password-123' } });
    expect(upper.status).toBe(200);
    const wrong = await t.req('POST', '/auth/login', { token: null, body: { email, password: 'password-999' } });
    const unknown = await t.req('POST', '/auth/login', { token: null, body: { email: 'nobody@example.com', password: 'password-999' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.error.code).toBe('UNAUTHORIZED');
    const missing = await t.req('POST', '/auth/login', { token: null, body: { email } });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toMatchObject({ field: 'password', reason: 'required' });
  });

  it('signs the admin in with the harness credentials', async () => {
    const res = await t.req('POST', '/auth/login', { token: null, body: { email: t.adminEmail, password: t.adminPassword } });
    expect(res.status).toBe(200);
    expect(res.body.user.role).toBe('admin');
  });
});

describe('refresh', () => {
  it('rotates the refresh token; reusing a rotated one ends the whole session', async () => {
    const { res } = await register();
    const first = res.body;
    const r1 = await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: first.refreshToken } });
    expect(r1.status).toBe(200);
    expect(r1.body).toEqual({ token: expect.any(String), refreshToken: expect.any(String), user: first.user });
    expect(r1.body.refreshToken).not.toBe(first.refreshToken);
    expect(claims(r1.body.token).sid).toBe(claims(first.token).sid);
    expect((await t.req('GET', '/auth/me', { token: r1.body.token })).status).toBe(200);

    // The old token again: refused, and the session (with its newest tokens) is gone.
    const reuse = await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: first.refreshToken } });
    expect(reuse.status).toBe(401);
    expect((await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: r1.body.refreshToken } })).status).toBe(401);
    expect((await t.req('GET', '/auth/me', { token: r1.body.token })).status).toBe(401);
    expect((await t.req('GET', '/auth/me', { token: first.token })).status).toBe(401);
  });

  it('refuses an unknown token and a missing one', async () => {
    expect((await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: 'hbr_nope' } })).status).toBe(401);
    const missing = await t.req('POST', '/auth/refresh', { token: null, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toMatchObject({ field: 'refreshToken', reason: 'required' });
  });

  it('lets only one of two concurrent refreshes with the same token through', async () => {
    const { res } = await register();
    const [a, b] = await Promise.all([1, 2].map(() => t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: res.body.refreshToken } })));
    expect([a.status, b.status].sort()).toEqual([200, 401]);
  });
});

describe('logout', () => {
  it('ends the session: its access and refresh tokens stop at once; other sessions go on', async () => {
    const { email, res } = await register();
    const other = await t.req('POST', '/auth/login', { token: null, body: { email, password: 'password-123' } });
    const out = await t.req('POST', '/auth/logout', { token: res.body.token });
    expect(out.status).toBe(204);
    expect((await t.req('GET', '/auth/me', { token: res.body.token })).status).toBe(401);
    expect((await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: res.body.refreshToken } })).status).toBe(401);
    expect((await t.req('GET', '/auth/me', { token: other.body.token })).status).toBe(200);
    expect((await t.req('POST', '/auth/logout', { token: res.body.token })).status).toBe(401);
  });

  it('accepts a refresh token in the body, with or without a live access token', async () => {
    const { email, res } = await register();
    const second = await t.req('POST', '/auth/login', { token: null, body: { email, password: 'password-123' } });
    // Access token of session 1, refresh token of session 2: both sessions end.
    expect((await t.req('POST', '/auth/logout', { token: res.body.token, body: { refreshToken: second.body.refreshToken } })).status).toBe(204);
    expect((await t.req('GET', '/auth/me', { token: second.body.token })).status).toBe(401);
    const third = await t.req('POST', '/auth/login', { token: null, body: { email, password: 'password-123' } });
    expect((await t.req('POST', '/auth/logout', { token: null, body: { refreshToken: third.body.refreshToken } })).status).toBe(204);
    expect((await t.req('GET', '/auth/me', { token: third.body.token })).status).toBe(401);
    expect((await t.req('POST', '/auth/logout', { token: null })).status).toBe(401);
  });
});

describe('me', () => {
  it('needs a token', async () => {
    const res = await t.req('GET', '/auth/me', { token: null });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it('updates name and other profile fields, partially, and refuses read-only fields', async () => {
    const { email, res } = await register();
    const token = res.body.token;
    const events: any[] = [];
    const off = t.srv.ctx.bus.subscribe((e) => { events.push(e); });
    const put = await t.req('PUT', '/auth/me', { token, body: { name: 'Ann B', avatar: 'a.png', prefs: { theme: 'dark' } } });
    off();
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ email, name: 'Ann B', avatar: 'a.png', prefs: { theme: 'dark' }, role: 'user' });
    expect(put.body.updatedAt >= put.body.createdAt).toBe(true);
    expect(events.find((e) => e.type === 'user.updated')).toMatchObject({ data: { _id: res.body.user._id, name: 'Ann B' }, actor: { _id: res.body.user._id } });
    const patch = await t.req('PATCH', '/auth/me', { token, body: { avatar: 'b.png' } });
    expect(patch.body).toMatchObject({ name: 'Ann B', avatar: 'b.png' });

    for (const field of ['role', 'email', 'password', '_id', 'passwordHash', 'createdAt', 'updatedAt']) {
      const bad = await t.req('PUT', '/auth/me', { token, body: { [field]: 'x' } });
      expect(bad.status, field).toBe(422);
      expect(bad.body.error.details).toMatchObject({ field, reason: 'read_only' });
    }
    const badName = await t.req('PUT', '/auth/me', { token, body: { name: 42 } });
    expect(badName.body.error.details).toMatchObject({ field: 'name', reason: 'type' });
    expect((await t.req('GET', '/auth/me', { token })).body).toMatchObject({ role: 'user', email, name: 'Ann B' });
  });
});

describe('change-password', () => {
  it('checks the current password, ends the other sessions and keeps this one', async () => {
    const { email, res } = await register();
    const other = await t.req('POST', '/auth/login', { token: null, body: { email, password: 'password-123' } });
    const wrong = await t.req('PUT', '/auth/change-password', { token: res.body.token, body: { currentPassword: 'nope-nope', newPassword: 'password-456' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.details).toMatchObject({ field: 'currentPassword', reason: 'invalid' });
    const short = await t.req('PUT', '/auth/change-password', { token: res.body.token, body: { currentPassword: 'password-123', newPassword: 'short' } });
    expect(short.body.error.details).toMatchObject({ field: 'newPassword', reason: 'too_short' });

    const ok = await t.req('PUT', '/auth/change-password', { token: res.body.token, body: { currentPassword: 'password-123', newPassword: 'password-456' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ _id: res.body.user._id, email });
    expect(ok.text).not.toMatch(/password/i);
    expect((await t.req('GET', '/auth/me', { token: res.body.token })).status).toBe(200);
    expect((await t.req('GET', '/auth/me', { token: other.body.token })).status).toBe(401);
    expect((await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: other.body.refreshToken } })).status).toBe(401);
    expect((await t.req('POST', '/auth/login', { token: null, body: { email, password: 'password-123' } })).status).toBe(401);
    expect((await t.req('POST', '/auth/login', { token: null, body: { email, password: 'password-456' } })).status).toBe(200);
    expect((await t.req('PUT', '/auth/change-password', { token: null, body: { currentPassword: 'a', newPassword: 'password-789' } })).status).toBe(401);
  });
});

describe('impersonate', () => {
  it('gives an admin a login result for another user, marked with act', async () => {
    const { res } = await register();
    const target = res.body.user;
    const imp = await t.req('POST', `/auth/impersonate/${target._id}`);
    expect(imp.status).toBe(200);
    expect(imp.body).toEqual({ token: expect.any(String), refreshToken: expect.any(String), user: target });
    const adminId = claims(t.adminToken).sub;
    expect(claims(imp.body.token)).toMatchObject({ sub: target._id, role: 'user', act: { sub: adminId } });
    expect((await t.req('GET', '/auth/me', { token: imp.body.token })).body._id).toBe(target._id);
    // A refreshed impersonation token still names the admin.
    const refreshed = await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: imp.body.refreshToken } });
    expect(claims(refreshed.body.token).act).toEqual({ sub: adminId });
    // Changes made while impersonating carry the admin in the actor.
    const events: any[] = [];
    const off = t.srv.ctx.bus.subscribe((e) => { events.push(e); });
    await t.req('PUT', '/auth/me', { token: refreshed.body.token, body: { name: 'Changed by admin' } });
    off();
    expect(events[0].actor).toEqual({ _id: target._id, role: 'user', impersonatedBy: adminId });
  });

  it('ends when the admin behind it stops being an admin', async () => {
    const { res } = await register();
    const second = await t.req('POST', '/users', { body: { email: freshEmail(), password: 'password-123', role: 'admin' } });
    const login = await t.req('POST', '/auth/login', { token: null, body: { email: second.body.email, password: 'password-123' } });
    const imp = await t.req('POST', `/auth/impersonate/${res.body.user._id}`, { token: login.body.token });
    expect(imp.status).toBe(200);
    expect((await t.req('GET', '/auth/me', { token: imp.body.token })).status).toBe(200);
    await t.req('PUT', `/users/${second.body._id}`, { body: { role: 'user' } });
    expect((await t.req('GET', '/auth/me', { token: imp.body.token })).status).toBe(401);
    expect((await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: imp.body.refreshToken } })).status).toBe(401);
    // The user's own session is not affected.
    expect((await t.req('GET', '/auth/me', { token: res.body.token })).status).toBe(200);
  });

  it('is for admins only, and 404 for an unknown user', async () => {
    const { res } = await register();
    const { res: other } = await register();
    const denied = await t.req('POST', `/auth/impersonate/${other.body.user._id}`, { token: res.body.token });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    expect((await t.req('POST', `/auth/impersonate/${other.body.user._id}`, { token: null })).status).toBe(401);
    expect((await t.req('POST', '/auth/impersonate/nobody')).status).toBe(404);
  });
});
