// The record GET fast path (app.ts) answers exactly as the routed path does: same statuses,
// bodies, headers of note and request-log entries. A path spelled so that it cannot take the
// fast path (`/DATABASE/`, which Express matches case-insensitively) goes through the routers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { startTestServer, type TestServer, type Res } from './test/harness.js';

let t: TestServer;
let recordId: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'only-user', write: 'private', update: 'private' } } });
  recordId = (await t.req('POST', '/database/notes', { body: { _id: 'n1', text: 'hello' } })).body._id;
});
afterAll(async () => { await t.close(); });

const same = (fast: Res, routed: Res) => {
  expect(fast.status).toBe(routed.status);
  expect(fast.body).toEqual(routed.body);
  expect(fast.headers.get('content-type')).toBe(routed.headers.get('content-type'));
  expect(fast.headers.get('x-content-type-options')).toBe('nosniff');
};

describe('record GET fast path', () => {
  it('answers like the routed path for every outcome', async () => {
    const other = await t.user('Other');
    const cases: Array<[string, string | null | undefined]> = [
      [`/database/notes/${recordId}`, undefined], // 200 (admin)
      [`/database/notes/${recordId}/`, undefined], // trailing slash
      [`/database/notes/${recordId}?fields=text`, undefined],
      [`/database/notes/${recordId}`, other.token], // 403: only-user
      [`/database/notes/${recordId}`, null], // 401: anonymous on only-user
      [`/database/notes/${recordId}`, 'not-a-token'], // 401
      ['/database/notes/missing', undefined], // 404 record
      ['/database/nothere/x1', undefined], // 404 collection
      ['/database/notes/fields', undefined], // schema part: the field list
      ['/database/notes/Views', undefined], // schema part in another case
    ];
    for (const [path, token] of cases) {
      const fast = await t.req('GET', path, { token });
      const routed = await t.req('GET', path.replace('/database/', '/DATABASE/'), { token });
      same(fast, routed);
    }
  });

  it('answers 404 for an unknown workspace and logs what it served', async () => {
    const res = await fetch(`${t.url}/app/nowhere/database/notes/${recordId}`, { headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('NOT_FOUND');

    await t.req('GET', `/database/notes/${recordId}`);
    const log = await t.consoleReq('GET', `/workspaces/${t.workspace}/requests`);
    expect(log.body.data[0]).toMatchObject({ method: 'GET', path: `/api/app/${t.workspace}/database/notes/${recordId}`, status: 200, accessRule: 'read:admin' });
  });

  it('keeps the Host guard: a foreign Host header is refused as on the routed path', async () => {
    const get = (path: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${t.url}/app/${t.workspace}${path}`, { headers: { host: 'evil.example', authorization: `Bearer ${t.adminToken}` } }, (res) => {
        let body = '';
        res.on('data', (c) => { body += c; });
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.end();
    });
    const fast = await get(`/database/notes/${recordId}`);
    const routed = await get(`/DATABASE/notes/${recordId}`);
    expect(fast.status).toBeGreaterThanOrEqual(400);
    expect(fast).toEqual(routed);
  });

  it('checks session and user on every request: sign-out, deletion and a role change act on the very next GET', async () => {
    const reader = await t.user('Reader');
    const path = `/database/notes/${recordId}`;
    expect((await t.req('GET', path, { token: reader.token })).status).toBe(403); // only-user, not the owner
    expect((await t.req('POST', '/auth/logout', { token: reader.token, body: {} })).status).toBe(204);
    expect((await t.req('GET', path, { token: reader.token })).status).toBe(401);

    const gone = await t.user('Gone');
    expect((await t.req('GET', path, { token: gone.token })).status).toBe(403);
    expect((await t.req('DELETE', `/users/${gone._id}`)).status).toBe(204);
    expect((await t.req('GET', path, { token: gone.token })).status).toBe(401);

    const second = await t.user('Second admin', { role: 'admin' });
    expect((await t.req('GET', path, { token: second.token })).status).toBe(200);
    expect((await t.req('PATCH', `/users/${second._id}`, { body: { role: 'user' } })).status).toBe(200);
    expect((await t.req('GET', path, { token: second.token })).status).toBe(403);
  });
});
