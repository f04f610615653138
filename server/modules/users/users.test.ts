import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

let t: TestServer;
let userToken: string;
const events: any[] = [];
beforeAll(async () => {
  t = await startTestServer();
  t.srv.ctx.bus.subscribe((e) => { events.push(e); });
  const reg = await t.req('POST', '/auth/register', { token: null, body: { email: 'plain@example.com', password: 'password-123' } });
  userToken = reg.body.token;
});
afterAll(async () => { await t.close(); });

const adminId = () => JSON.parse(Buffer.from(t.adminToken.split('.')[1], 'base64url').toString()).sub;
const noSecrets = (text: string) => expect(text).not.toMatch(/passwordHash|\$2[aby]\$|secret-pass/);

describe('users administration', () => {
  it('refuses non-admins (403) and anonymous callers (401) on every route', async () => {
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/users'], ['GET', '/users/x'], ['POST', '/users', { email: 'a@b.co', password: 'password-123' }],
      ['PUT', '/users/x', { name: 'n' }], ['PATCH', '/users/x', { name: 'n' }], ['DELETE', '/users/x'],
    ];
    for (const [method, path, body] of routes) {
      const asUser = await t.req(method, path, { token: userToken, body });
      expect(asUser.status, `${method} ${path}`).toBe(403);
      expect(asUser.body.error.code).toBe('FORBIDDEN');
      const anon = await t.req(method, path, { token: null, body });
      expect(anon.status, `${method} ${path}`).toBe(401);
    }
  });

  it('creates users (201), with role, profile fields and the events; 409 duplicate; 422 missing email', async () => {
    const res = await t.req('POST', '/users', { body: { email: 'New@Example.com', password: 'secret-pass-1', name: 'New', role: 'editor', team: 'blue' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ _id: expect.any(String), email: 'new@example.com', name: 'New', role: 'editor', team: 'blue', createdAt: expect.any(String), updatedAt: expect.any(String) });
    noSecrets(res.text);
    const ev = events.find((e) => e.type === 'user.created' && e.data._id === res.body._id);
    expect(ev).toMatchObject({ app: 'demo', data: res.body, actor: { _id: adminId(), role: 'admin' } });
    noSecrets(JSON.stringify(ev));
    const login = await t.req('POST', '/auth/login', { token: null, body: { email: 'new@example.com', password: 'secret-pass-1' } });
    expect(login.status).toBe(200);

    const dflt = await t.req('POST', '/users', { body: { email: 'dflt@example.com', password: 'secret-pass-1' } });
    expect(dflt.body).toMatchObject({ role: 'user', name: '' });

    const dup = await t.req('POST', '/users', { body: { email: 'NEW@example.com', password: 'secret-pass-1' } });
    expect(dup.status).toBe(409);
    const missing = await t.req('POST', '/users', { body: { password: 'secret-pass-1', name: 'x' } });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'email', reason: 'required' } });
    const noPassword = await t.req('POST', '/users', { body: { email: 'np@example.com' } });
    expect(noPassword.body.error.details).toMatchObject({ field: 'password', reason: 'required' });
    const ro = await t.req('POST', '/users', { body: { email: 'ro@example.com', password: 'secret-pass-1', passwordHash: 'x' } });
    expect(ro.body.error.details).toMatchObject({ field: 'passwordHash', reason: 'read_only' });
  });

  it('lists with the list parameters and never shows the hash', async () => {
    for (const name of ['Carol', 'Bob', 'Alice']) {
      await t.req('POST', '/users', { body: { email: `${name.toLowerCase()}@list.test`, password: 'secret-pass-1', name, role: 'tester' } });
    }
    const list = await t.req('GET', '/users?filter[role]=tester&sort=name');
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ total: 3, limit: 50, offset: 0 });
    expect(list.body.data.map((u: any) => u.name)).toEqual(['Alice', 'Bob', 'Carol']);
    noSecrets(list.text);
    const page = await t.req('GET', '/users?filter[role]=tester&sort=-name&limit=1&offset=1&fields=email');
    expect(page.body).toEqual({ data: [{ _id: expect.any(String), email: 'bob@list.test' }], meta: { total: 3, limit: 1, offset: 1 } });
    const all = await t.req('GET', '/users?limit=0');
    expect(all.body.data).toEqual([]);
    expect(all.body.meta.total).toBeGreaterThanOrEqual(6);
    const startsWith = await t.req('GET', '/users?filter[email][$startsWith]=ali');
    expect(startsWith.body.data.map((u: any) => u.email)).toEqual(['alice@list.test']);
    expect((await t.req('GET', '/users?limit=abc')).status).toBe(400);
    expect((await t.req('GET', '/users?filter[name][$regex]=x')).status).toBe(400);
  });

  it('refuses to filter, sort or select on the password hash (it would be an oracle)', async () => {
    for (const q of ['filter[passwordHash][$startsWith]=$2b', 'filter[passwordHash]=x', 'filter[passwordHash][$exists]=true', 'sort=passwordHash', 'sort=name,-passwordHash', 'fields=email,passwordHash', 'filter[passwordHash.x]=1']) {
      const res = await t.req('GET', `/users?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('BAD_REQUEST');
    }
  });

  it('gets one user; 404 for an unknown id', async () => {
    const created = await t.req('POST', '/users', { body: { email: 'get@example.com', password: 'secret-pass-1' } });
    const got = await t.req('GET', `/users/${created.body._id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
    expect((await t.req('GET', '/users/nope')).status).toBe(404);
  });

  it('updates partially with PUT or PATCH; email unique; read-only fields refused', async () => {
    const u = (await t.req('POST', '/users', { body: { email: 'upd@example.com', password: 'secret-pass-1', name: 'Up', team: 'red' } })).body;
    const put = await t.req('PUT', `/users/${u._id}`, { body: { name: 'Upd', role: 'editor' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ _id: u._id, email: 'upd@example.com', name: 'Upd', role: 'editor', team: 'red', createdAt: u.createdAt });
    const patch = await t.req('PATCH', `/users/${u._id}`, { body: { email: 'UPD2@example.com' } });
    expect(patch.body).toMatchObject({ email: 'upd2@example.com', name: 'Upd' });
    expect(events.filter((e) => e.type === 'user.updated' && e.data._id === u._id).map((e) => e.data.name)).toEqual(['Upd', 'Upd']);
    const same = await t.req('PUT', `/users/${u._id}`, { body: { email: 'upd2@example.com' } });
    expect(same.status).toBe(200);
    const dup = await t.req('PUT', `/users/${u._id}`, { body: { email: 'plain@example.com' } });
    expect(dup.status).toBe(409);
    for (const field of ['_id', 'passwordHash', 'createdAt', 'updatedAt']) {
      const bad = await t.req('PUT', `/users/${u._id}`, { body: { [field]: 'x' } });
      expect(bad.status).toBe(422);
      expect(bad.body.error.details).toMatchObject({ field, reason: 'read_only' });
    }
    expect((await t.req('PUT', `/users/${u._id}`, { body: { email: 'nope' } })).body.error.details).toMatchObject({ field: 'email', reason: 'format' });
    expect((await t.req('PUT', '/users/nope', { body: { name: 'x' } })).status).toBe(404);
  });

  it('a new password is hashed, works at login, and ends the user\'s sessions', async () => {
    const u = (await t.req('POST', '/users', { body: { email: 'pw@example.com', password: 'secret-pass-1' } })).body;
    const session = await t.req('POST', '/auth/login', { token: null, body: { email: 'pw@example.com', password: 'secret-pass-1' } });
    const res = await t.req('PUT', `/users/${u._id}`, { body: { password: 'secret-pass-2' } });
    expect(res.status).toBe(200);
    noSecrets(res.text);
    expect(res.text).not.toContain('secret-pass-2');
    expect((await t.req('GET', '/auth/me', { token: session.body.token })).status).toBe(401);
    expect((await t.req('POST', '/auth/login', { token: null, body: { email: 'pw@example.com', password: 'secret-pass-1' } })).status).toBe(401);
    expect((await t.req('POST', '/auth/login', { token: null, body: { email: 'pw@example.com', password: 'secret-pass-2' } })).status).toBe(200);
    noSecrets(JSON.stringify(events));
    // The admin changing his own password keeps the session he did it with.
    const me = await t.req('PUT', `/users/${adminId()}`, { body: { password: t.adminPassword } });
    expect(me.status).toBe(200);
    expect((await t.req('GET', '/auth/me')).status).toBe(200);
  });

  it('deletes a user (204), ending the sessions and publishing user.deleted', async () => {
    const u = (await t.req('POST', '/users', { body: { email: 'del@example.com', password: 'secret-pass-1', name: 'Del' } })).body;
    const session = await t.req('POST', '/auth/login', { token: null, body: { email: 'del@example.com', password: 'secret-pass-1' } });
    expect((await t.req('DELETE', `/users/${u._id}`)).status).toBe(204);
    expect((await t.req('GET', `/users/${u._id}`)).status).toBe(404);
    expect((await t.req('DELETE', `/users/${u._id}`)).status).toBe(404);
    expect((await t.req('GET', '/auth/me', { token: session.body.token })).status).toBe(401);
    expect((await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: session.body.refreshToken } })).status).toBe(401);
    const ev = events.find((e) => e.type === 'user.deleted' && e.data._id === u._id);
    expect(ev).toMatchObject({ data: { email: 'del@example.com', name: 'Del' }, actor: { _id: adminId() } });
    noSecrets(JSON.stringify(ev));
    // The email is free again.
    expect((await t.req('POST', '/users', { body: { email: 'del@example.com', password: 'secret-pass-1' } })).status).toBe(201);
  });

  it('keeps at least one administrator', async () => {
    const demote = await t.req('PUT', `/users/${adminId()}`, { body: { role: 'user' } });
    expect(demote.status).toBe(409);
    expect((await t.req('DELETE', `/users/${adminId()}`)).status).toBe(409);
    const second = (await t.req('POST', '/users', { body: { email: 'admin2@example.com', password: 'secret-pass-1', role: 'admin' } })).body;
    const login = await t.req('POST', '/auth/login', { token: null, body: { email: 'admin2@example.com', password: 'secret-pass-1' } });
    expect((await t.req('GET', '/users', { token: login.body.token })).status).toBe(200);
    // Demoted: the same token loses its powers at once.
    expect((await t.req('PUT', `/users/${second._id}`, { body: { role: 'user' } })).status).toBe(200);
    expect((await t.req('GET', '/users', { token: login.body.token })).status).toBe(403);
  });
});

describe('key names', () => {
  it('refuses a profile key the store cannot hold with the one key-name wording records use too', async () => {
    expect((await t.req('POST', '/database', { body: { _id: 'keyed', setting: { read: 'public', write: 'public', update: 'private' } } })).status).toBe(201);
    const bad = ['$x', 'a.b', '__proto__'];
    for (const key of bad) {
      const body = JSON.parse(`{"email":"k${bad.indexOf(key)}@example.com","password":"password-123",${JSON.stringify(key)}:1}`);
      const user = await t.req('POST', '/users', { body });
      expect(user.status, key).toBe(422);
      const record = await t.req('POST', '/database/keyed', { body: JSON.parse(`{${JSON.stringify(key)}:1}`) });
      expect(record.status, key).toBe(422);
      const detail = (res: typeof user) => (res.body.error.details.errors ?? [res.body.error.details]).find((e: { field: string }) => e.field === key);
      expect(detail(user), key).toEqual({ field: key, reason: 'format', message: `Field name '${key}' may not start with '$', contain '.' or be '__proto__'` });
      expect(detail(record), key).toEqual(detail(user));
    }
  });
});
