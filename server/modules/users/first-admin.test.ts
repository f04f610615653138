// The workspace's first admin (kept by a reset, used by the console to mint tokens) moves to
// another admin when it is deleted or demoted, so a reset never leaves a workspace without one.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

let t: TestServer | undefined;
afterEach(async () => { await t?.close(); t = undefined; });

async function secondAdmin(s: TestServer, email = 'second@example.com') {
  const created = await s.req('POST', '/users', { body: { email, password: 'second-password-1', role: 'admin' } });
  expect(created.status).toBe(201);
  const login = await s.req('POST', '/auth/login', { token: null, body: { email, password: 'second-password-1' } });
  expect(login.status).toBe(200);
  return { id: created.body._id as string, token: login.body.token as string };
}

const firstAdminOf = (s: TestServer) => s.srv.ctx.registry.require('demo').settings.data.firstAdminId;

describe('first admin', () => {
  it('moves to the remaining admin when the first admin is deleted; reset keeps it and the console still gets a token', async () => {
    t = await startTestServer();
    const firstId = firstAdminOf(t);
    const second = await secondAdmin(t);
    await secondAdmin(t, 'third@example.com');
    expect((await t.req('DELETE', `/users/${firstId}`, { token: second.token })).status).toBe(204);
    expect(firstAdminOf(t)).toBe(second.id); // the oldest remaining admin

    const reset = await t.consoleReq('POST', '/workspaces/demo/reset');
    expect(reset.status).toBe(200);
    expect(reset.body.firstAdminId).toBe(second.id);
    const token = await t.consoleReq('POST', '/workspaces/demo/token');
    expect(token.status).toBe(200);
    const users = await t.req('GET', '/users', { token: token.body.token });
    expect(users.body.data.map((u: { email: string }) => u.email)).toEqual(['second@example.com']);
    expect((await t.req('GET', '/auth/me', { token: second.token })).status).toBe(200); // its session survives the reset
  });

  it('moves when the first admin is demoted', async () => {
    t = await startTestServer();
    const firstId = firstAdminOf(t);
    const second = await secondAdmin(t);
    expect((await t.req('PUT', `/users/${firstId}`, { token: second.token, body: { role: 'user' } })).status).toBe(200);
    expect(firstAdminOf(t)).toBe(second.id);
    const reset = await t.consoleReq('POST', '/workspaces/demo/reset');
    expect(reset.body.firstAdminId).toBe(second.id);
    expect((await t.consoleReq('POST', '/workspaces/demo/token')).status).toBe(200);
    // Promoting the old first admin again does not move it back.
    expect(firstAdminOf(t)).toBe(second.id);
  });

  it('reset falls back to the oldest remaining admin when the recorded one is gone (older data)', async () => {
    t = await startTestServer();
    const ws = t.srv.ctx.registry.require('demo');
    const second = await secondAdmin(t);
    await secondAdmin(t, 'third@example.com');
    await ws.settings.update((d) => { d.firstAdminId = 'GoneAdmin1'; });
    const reset = await t.consoleReq('POST', '/workspaces/demo/reset');
    expect(reset.status).toBe(200);
    // The harness's admin was created first: it is the oldest admin.
    const users = await t.req('GET', '/users');
    expect(users.body.data).toHaveLength(1);
    expect(reset.body.firstAdminId).toBe(users.body.data[0]._id);
    expect(reset.body.firstAdminId).not.toBe(second.id);
    expect((await t.consoleReq('POST', '/workspaces/demo/token')).status).toBe(200);
  });
});
