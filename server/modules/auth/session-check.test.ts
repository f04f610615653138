// Every change that ends a session or changes who its user is acts on the very next request,
// on the record GET fast path (whose token check does not wait a turn, server/express/record-get.ts)
// as on a routed request (/auth/me). Nothing about a session may be remembered across
// requests: each case here fails if a token outlives what should have ended it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

let t: TestServer;
const RECORD = '/database/notes/n1';
beforeAll(async () => {
  t = await startTestServer();
  await t.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'private', write: 'private', update: 'private' } } });
  expect((await t.req('POST', '/database/notes', { body: { _id: 'n1', text: 'hello' } })).status).toBe(201);
});
afterAll(async () => { await t.close(); });

/** Both paths answer `status` for this token. */
async function both(token: string, status: number) {
  expect((await t.req('GET', RECORD, { token })).status).toBe(status);
  expect((await t.req('GET', '/auth/me', { token })).status).toBe(status);
}

async function signIn(email: string, password: string) {
  const res = await t.req('POST', '/auth/login', { token: null, body: { email, password } });
  expect(res.status).toBe(200);
  return res.body as { token: string; refreshToken: string };
}

describe('the session check of every request', () => {
  it('sign-out', async () => {
    const u = await t.user();
    await both(u.token, 200);
    expect((await t.req('POST', '/auth/logout', { token: u.token, body: {} })).status).toBe(204);
    await both(u.token, 401);
  });

  it('password change ends the other sessions', async () => {
    const u = await t.user();
    const other = await signIn(u.email, u.password);
    await both(other.token, 200);
    const changed = await t.req('PUT', '/auth/change-password', { token: u.token, body: { currentPassword: u.password, newPassword: 'another-password-9' } });
    expect(changed.status).toBe(200);
    await both(other.token, 401);
    await both(u.token, 200);
  });

  it('role change: the next request is made with the new role', async () => {
    const u = await t.user('Promoted');
    expect((await t.req('GET', '/users', { token: u.token })).status).toBe(403);
    expect((await t.req('PATCH', `/users/${u._id}`, { body: { role: 'admin' } })).status).toBe(200);
    expect((await t.req('GET', '/users', { token: u.token })).status).toBe(200);
    expect((await t.req('GET', '/auth/me', { token: u.token })).body.role).toBe('admin');
    expect((await t.req('PATCH', `/users/${u._id}`, { body: { role: 'user' } })).status).toBe(200);
    expect((await t.req('GET', '/users', { token: u.token })).status).toBe(403);
  });

  it('user deletion', async () => {
    const u = await t.user();
    await both(u.token, 200);
    expect((await t.req('DELETE', `/users/${u._id}`)).status).toBe(204);
    await both(u.token, 401);
  });

  it('impersonation ends with its sign-out and when its admin is demoted', async () => {
    const target = await t.user('Target');
    const imp = await t.req('POST', `/auth/impersonate/${target._id}`);
    expect(imp.status).toBe(200);
    await both(imp.body.token, 200);
    expect((await t.req('POST', '/auth/logout', { token: imp.body.token, body: {} })).status).toBe(204);
    await both(imp.body.token, 401);
    await both(target.token, 200);

    const admin = await t.user('Second admin', { role: 'admin' });
    const again = await t.req('POST', `/auth/impersonate/${target._id}`, { token: admin.token });
    await both(again.body.token, 200);
    expect((await t.req('PATCH', `/users/${admin._id}`, { body: { role: 'user' } })).status).toBe(200);
    await both(again.body.token, 401);
  });

  it('workspace restore, import and reset: tokens of users the workspace no longer holds', async () => {
    const ws = `/workspaces/${t.workspace}`;
    expect((await t.consoleReq('POST', `${ws}/snapshots`, { name: 'before' })).status).toBe(201);
    const dump = (await t.consoleReq('GET', `${ws}/export`)).body;

    const restored = await t.user('Gone by restore');
    await both(restored.token, 200);
    expect((await t.consoleReq('POST', `${ws}/snapshots/before/restore`)).status).toBe(200);
    await both(restored.token, 401);

    const imported = await t.user('Gone by import');
    await both(imported.token, 200);
    expect((await t.consoleReq('POST', `${ws}/import`, dump)).status).toBe(200);
    await both(imported.token, 401);

    const reset = await t.user('Gone by reset');
    await both(reset.token, 200);
    expect((await t.consoleReq('POST', `${ws}/reset`, { keepSchema: true })).status).toBe(200);
    await both(reset.token, 401);
  });
});
