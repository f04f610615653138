import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

let t: TestServer;
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { await t.close(); });

describe('console API', () => {
  it('answers health without auth', async () => {
    const res = await fetch(`${t.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('requires the console token', async () => {
    const res = await fetch(`${t.url}/workspaces`);
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('UNAUTHORIZED');
    const wrong = await fetch(`${t.url}/workspaces`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
  });

  it('lists, creates and deletes workspaces', async () => {
    const list = await t.consoleReq('GET', '/workspaces');
    expect(list.status).toBe(200);
    expect(list.body.data.map((w: { _id: string }) => w._id)).toEqual(['demo']);

    const created = await t.consoleReq('POST', '/workspaces', { _id: 'shop', name: 'Shop', admin: { email: 'Boss@Shop.test', password: 'secret-123' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ _id: 'shop', name: 'Shop', admin: { email: 'boss@shop.test', role: 'admin' } });
    expect(JSON.stringify(created.body)).not.toMatch(/passwordHash|secret-123/);

    expect((await t.consoleReq('POST', '/workspaces', { _id: 'shop' })).status).toBe(409);
    // An id equal apart from case would be the same folder on macOS and Windows.
    for (const id of ['Shop', 'SHOP']) {
      const twin = await t.consoleReq('POST', '/workspaces', { _id: id });
      expect(twin.status, id).toBe(409);
      expect(twin.body.error.message).toMatch(/'shop'.*case/);
    }
    expect((await t.consoleReq('GET', '/workspaces')).body.data.map((w: { _id: string }) => w._id)).toEqual(['demo', 'shop']);
    const bad = await t.consoleReq('POST', '/workspaces', { _id: '9bad' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toMatchObject({ field: '_id', reason: 'format' });
    expect((await t.consoleReq('POST', '/workspaces', { name: 'x' })).body.error.details).toMatchObject({ field: '_id', reason: 'required' });

    const token = await t.consoleReq('POST', '/workspaces/shop/token');
    expect(token.status).toBe(200);
    expect(token.body.user).toMatchObject({ email: 'boss@shop.test', role: 'admin' });
    const [, payload] = token.body.token.split('.');
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString())).toMatchObject({ app: 'shop', role: 'admin', sub: token.body.user._id });

    expect((await t.consoleReq('DELETE', '/workspaces/shop')).status).toBe(204);
    expect((await t.consoleReq('DELETE', '/workspaces/shop')).status).toBe(404);
    expect((await t.consoleReq('POST', '/workspaces/shop/token')).status).toBe(404);
  });

  it('creates a workspace whose admin gives a password but no email: the server default applies', async () => {
    // The console sends `admin: { password }` when its email field is left empty.
    const created = await t.consoleReq('POST', '/workspaces', { _id: 'noemail', admin: { password: 'secret-123' } });
    expect(created.status).toBe(201);
    expect(created.body.admin).toMatchObject({ email: t.adminEmail, role: 'admin' });
    const empty = await t.consoleReq('POST', '/workspaces', { _id: 'noemail2', admin: {} });
    expect(empty.status).toBe(201);
    expect(empty.body.admin.email).toBe(t.adminEmail);
    expect(typeof empty.body.admin.password).toBe('string');
    const bad = await t.consoleReq('POST', '/workspaces', { _id: 'noemail3', admin: { email: 'nope' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toMatchObject({ field: 'admin.email' });
    for (const id of ['noemail', 'noemail2']) expect((await t.consoleReq('DELETE', `/workspaces/${id}`)).status).toBe(204);
  });

  it('answers errors in the contract shape', async () => {
    const badJson = await fetch(`${t.url}/workspaces`, { method: 'POST', headers: { authorization: `Bearer ${t.consoleToken}`, 'content-type': 'application/json' }, body: '{nope' });
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toEqual({ error: { code: 'BAD_REQUEST', message: expect.any(String), details: {} } });
    const text = await fetch(`${t.url}/workspaces`, { method: 'POST', headers: { authorization: `Bearer ${t.consoleToken}`, 'content-type': 'text/plain' }, body: 'hello' });
    expect(text.status).toBe(415);
    const array = await fetch(`${t.url}/workspaces`, { method: 'POST', headers: { authorization: `Bearer ${t.consoleToken}`, 'content-type': 'application/json' }, body: '[1]' });
    expect(array.status).toBe(400);
    const big = await fetch(`${t.url}/workspaces`, { method: 'POST', headers: { authorization: `Bearer ${t.consoleToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ _id: 'x', pad: 'a'.repeat(1.1 * 1024 * 1024) }) });
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
    const route = await fetch(`${t.url}/nothing-here`);
    expect(route.status).toBe(404);
    expect((await route.json()).error.code).toBe('NOT_FOUND');
    const ws = await t.req('GET', '/database', {});
    expect([200, 404]).toContain(ws.status);
    const unknownWs = await fetch(`${t.url}/app/nope/database`);
    expect(unknownWs.status).toBe(404);
  });

  it('refuses a foreign Host (DNS rebinding) but accepts localhost names', async () => {
    const port = new URL(t.url).port;
    const http = await import('node:http');
    const status = (host: string) => new Promise<number>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/api/health', headers: { host } }, (res) => { res.resume(); resolve(res.statusCode!); }).on('error', reject);
    });
    expect(await status('evil.example.com')).toBe(403);
    expect(await status(`localhost:${port}`)).toBe(200);
    expect(await status(`app.localhost:${port}`)).toBe(200);
    expect(await status(`127.0.0.1:${port}`)).toBe(200);
  });
});
