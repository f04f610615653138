// The v2 face over HTTP: envelope, REST meaning, caching, `fields=`, 405, one rule set with v1.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/harness.js';
import type { BusEvent } from '../core/bus.js';
import { makeCollection, v2Client } from './v2-client.js';

let t: TestServer;
let v2: ReturnType<typeof v2Client>;
const events: BusEvent[] = [];

beforeAll(async () => {
  t = await startTestServer();
  v2 = v2Client(t);
  t.srv.ctx.bus.subscribe((e) => { events.push(e); });
  await makeCollection(t, 'notes', [
    { _id: 'title', name: 'Title', type: 'string', required: true },
    { _id: 'body', name: 'Body', type: 'string' },
    { _id: 'priority', name: 'Priority', type: 'integer', default: 1 },
  ]);
});
afterAll(async () => { await t?.close(); });

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('envelope', () => {
  it('wraps one resource with data, meta and links; a list adds total, limit and pagination', async () => {
    const created = await v2('POST', '/database/notes', { body: { title: 'first', body: 'x' } });
    expect(created.status).toBe(201);
    const id = created.body.data._id;
    const item = `${t.url}/v2/app/demo/database/notes/${id}`;
    expect(created.headers.get('location')).toBe(item);
    expect(created.body).toEqual({
      data: expect.objectContaining({ _id: id, title: 'first', body: 'x', priority: 1 }),
      meta: { timestamp: expect.stringMatching(ISO), version: '2' },
      links: { self: item, collection: `${t.url}/v2/app/demo/database/notes` },
    });

    const one = await v2('GET', `/database/notes/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(created.body.data);
    expect(one.body.links).toEqual({ self: item, collection: `${t.url}/v2/app/demo/database/notes` });

    const list = await v2('GET', '/database/notes?limit=10');
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ timestamp: expect.stringMatching(ISO), version: '2', total: expect.any(Number), limit: 10, offset: 0 });
    expect(list.body.links.self).toBe(`${t.url}/v2/app/demo/database/notes?limit=10`);
    expect(list.body.pagination).toEqual({ next: null, prev: null, hasMore: false });
    expect(list.body.data.map((d: { _id: string }) => d._id)).toContain(id);
  });

  it('errors keep the v1 body and add meta', async () => {
    const missing = await v2('GET', '/database/notes/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: { code: 'NOT_FOUND', message: "Record 'nope' not found", details: {} },
      meta: { timestamp: expect.stringMatching(ISO), version: '2' },
    });
    const v1 = await t.req('GET', '/database/notes/nope');
    expect(v1.body).toEqual({ error: missing.body.error });
    const invalid = await v2('POST', '/database/notes', { body: { body: 'no title' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.details).toMatchObject({ field: 'title', reason: 'required' });
    expect(invalid.body.meta.version).toBe('2');
  });

  it('wraps the other groups too (users, the collection list)', async () => {
    const users = await v2('GET', '/users?limit=1');
    expect(users.status).toBe(200);
    expect(users.body.meta).toMatchObject({ version: '2', limit: 1, total: expect.any(Number) });
    expect(users.body.data[0]).not.toHaveProperty('password');
    expect(users.body.pagination).toHaveProperty('hasMore');
    const me = await v2('GET', '/auth/me');
    expect(me.body.data.email).toBe(t.adminEmail);
    const user = await v2('GET', `/users/${me.body.data._id}`);
    expect(user.body.links).toEqual({ self: `${t.url}/v2/app/demo/users/${me.body.data._id}`, collection: `${t.url}/v2/app/demo/users` });
  });
});

describe('REST meaning', () => {
  it('PATCH merges; PUT replaces (absent fields removed, defaults and required applied, system fields kept)', async () => {
    const { body: { data: rec } } = await v2('POST', '/database/notes', { body: { title: 'a', body: 'keep?', extra: 5, priority: 3 } });
    const patched = await v2('PATCH', `/database/notes/${rec._id}`, { body: { body: 'merged' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ title: 'a', body: 'merged', extra: 5, priority: 3 });

    const replaced = await v2('PUT', `/database/notes/${rec._id}`, { body: { title: 'b' } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toEqual({ _id: rec._id, title: 'b', priority: 1, _owner: rec._owner, createdAt: rec.createdAt, updatedAt: expect.any(String) });
    const read = await t.req('GET', `/database/notes/${rec._id}`); // the same record through v1
    expect(read.body).toEqual(replaced.body.data);

    const noTitle = await v2('PUT', `/database/notes/${rec._id}`, { body: { body: 'x' } });
    expect(noTitle.status).toBe(422);
    expect(noTitle.body.error.details).toMatchObject({ field: 'title', reason: 'required' });
    const changedOwner = await v2('PUT', `/database/notes/${rec._id}`, { body: { title: 'c', _owner: 'someone' } });
    expect(changedOwner.status).toBe(422);
    expect(changedOwner.body.error.details).toMatchObject({ field: '_owner', reason: 'read_only' });
    const sameSystem = await v2('PUT', `/database/notes/${rec._id}`, { body: { title: 'd', _id: rec._id, createdAt: rec.createdAt } });
    expect(sameSystem.status).toBe(200);
    expect((await t.req('GET', `/database/notes/${rec._id}`)).body.title).toBe('d');
  });

  it('PUT and PATCH publish record.updated, DELETE answers 204 and publishes record.deleted', async () => {
    const { body: { data: rec } } = await v2('POST', '/database/notes', { body: { title: 'evt' } });
    const mark = events.length;
    await v2('PUT', `/database/notes/${rec._id}`, { body: { title: 'evt2' } });
    const del = await v2('DELETE', `/database/notes/${rec._id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect(events.slice(mark).map((e) => [e.type, (e.data as { title?: string }).title])).toEqual([['record.updated', 'evt2'], ['record.deleted', 'evt2']]);
    expect((await v2('GET', `/database/notes/${rec._id}`)).status).toBe(404);
  });

  it('the same access rules as v1: anonymous writes are 401, reads of public collections allowed', async () => {
    expect((await v2('POST', '/database/notes', { token: null, body: { title: 'x' } })).status).toBe(401);
    expect((await v2('GET', '/database/notes', { token: null })).status).toBe(200);
    const user = await t.user('Plain');
    expect((await v2('POST', '/database', { token: user.token, body: { _id: 'nope', name: 'n', setting: { read: 'public' } } })).status).toBe(403);
  });

  it('a method the path lacks is a 405 with Allow; collections change at /database/{id} only', async () => {
    const put = await v2('PUT', '/database', { body: { _id: 'notes', name: 'x' } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, HEAD');
    expect(put.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect((await v2('DELETE', '/users')).headers.get('allow')).toBe('GET, POST, HEAD');
    const patch = await v2('PATCH', '/database/notes', { body: { name: 'Notes v2' } });
    expect(patch.status).toBe(200);
    expect(patch.body.data.name).toBe('Notes v2');
    expect((await v2('GET', '/no-such-group')).status).toBe(404);
  });

  it('a record made through v1 is read through v2 and the other way round; the request log lists v2 requests', async () => {
    const v1 = await t.req('POST', '/database/notes', { body: { title: 'from v1' } });
    expect((await v2('GET', `/database/notes/${v1.body._id}`)).body.data).toEqual(v1.body);
    const made = await v2('POST', '/database/notes', { body: { title: 'from v2' } });
    expect((await t.req('GET', `/database/notes/${made.body.data._id}`)).body).toEqual(made.body.data);
    const log = await t.consoleReq('GET', '/workspaces/demo/requests?limit=100');
    expect(log.body.data.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toContain('POST /api/v2/app/demo/database/notes');
  });
});

describe('fields=', () => {
  it('keeps the paths named (and _id) on a record, a list and other resources', async () => {
    const { body: { data: rec } } = await v2('POST', '/database/notes', { body: { title: 'f', body: 'b', meta: { a: 1, b: 2 } } });
    expect((await v2('GET', `/database/notes/${rec._id}?fields=title,meta.a`)).body.data).toEqual({ _id: rec._id, title: 'f', meta: { a: 1 } });
    const list = await v2('GET', `/database/notes?fields=title&filter[_id]=${rec._id}`);
    expect(list.body.data).toEqual([{ _id: rec._id, title: 'f' }]);
    const me = await v2('GET', '/auth/me?fields=email');
    expect(me.body.data).toEqual({ _id: expect.any(String), email: t.adminEmail });
  });
});

describe('caching', () => {
  it('GET answers a strong ETag and Cache-Control; If-None-Match gives 304; a change gives a new tag', async () => {
    const { body: { data: rec } } = await v2('POST', '/database/notes', { body: { title: 'cache' } });
    const first = await v2('GET', `/database/notes/${rec._id}`);
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    expect((await v2('GET', `/database/notes/${rec._id}`)).headers.get('etag')).toBe(tag); // the timestamp is not part of it
    const again = await v2('GET', `/database/notes/${rec._id}`, { headers: { 'if-none-match': tag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    await v2('PATCH', `/database/notes/${rec._id}`, { body: { body: 'changed' } });
    const changed = await v2('GET', `/database/notes/${rec._id}`, { headers: { 'if-none-match': tag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(tag);
    const list = await v2('GET', '/database/notes');
    expect((await v2('GET', '/database/notes', { headers: { 'if-none-match': list.headers.get('etag')! } })).status).toBe(304);
  });

  it('If-Match with a stale tag is a 412 and nothing is written; the current tag goes through; malformed is a 400', async () => {
    const { body: { data: rec } } = await v2('POST', '/database/notes', { body: { title: 'v1' } });
    const tag = (await v2('GET', `/database/notes/${rec._id}`)).headers.get('etag')!;
    const changed = await v2('PATCH', `/database/notes/${rec._id}`, { body: { title: 'v2' }, headers: { 'if-match': tag } });
    expect(changed.status).toBe(200);
    const mark = events.length;
    for (const [method, body] of [['PATCH', { title: 'v3' }], ['PUT', { title: 'v3' }], ['DELETE', undefined]] as const) {
      const stale = await v2(method, `/database/notes/${rec._id}`, { body, headers: { 'if-match': tag } });
      expect(stale.status).toBe(412);
      expect(stale.body.error.code).toBe('PRECONDITION_FAILED');
    }
    expect(events.length).toBe(mark);
    expect((await t.req('GET', `/database/notes/${rec._id}`)).body.title).toBe('v2');
    expect((await v2('PATCH', `/database/notes/${rec._id}`, { body: { title: 'v3' }, headers: { 'if-match': 'W/' + changed.headers.get('etag') } })).status).toBe(412);
    const bad = await v2('PATCH', `/database/notes/${rec._id}`, { body: { title: 'v3' }, headers: { 'if-match': 'not-quoted' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('If-Match');
    const del = await v2('DELETE', `/database/notes/${rec._id}`, { headers: { 'if-match': `"other", ${changed.headers.get('etag')}` } });
    expect(del.status).toBe(204);
  });
});

describe('record GET without Accept-Encoding (the fast path)', () => {
  /** A GET sending no Accept-Encoding (fetch always sends one). */
  function plainGet(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
    return new Promise((resolve, reject) => {
      request(`${t.url}/v2/app/demo${path}`, { headers: { authorization: `Bearer ${t.adminToken}`, ...headers } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => { text += c; });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
      }).on('error', reject).end();
    });
  }

  it('answers as the ordinary route does: envelope, ETag, 304, fields, errors with meta', async () => {
    const { body: { data: rec } } = await v2('POST', '/database/notes', { body: { title: 'fast', body: 'b' } });
    const viaFetch = await v2('GET', `/database/notes/${rec._id}`);
    const fast = await plainGet(`/database/notes/${rec._id}`);
    expect(fast.status).toBe(200);
    expect(fast.body.data).toEqual(viaFetch.body.data);
    expect(fast.body.links).toEqual(viaFetch.body.links);
    expect(fast.body.meta.version).toBe('2');
    expect(fast.headers.etag).toBe(viaFetch.headers.get('etag'));
    expect(fast.headers['cache-control']).toBe('private, no-cache');
    expect(fast.headers.vary).toBe('Accept-Encoding');
    expect(fast.headers['x-ratelimit-limit']).toBe('10000');
    // Each fast answer is counted against the caller's budget.
    const next = await plainGet(`/database/notes/${rec._id}`);
    expect(Number(next.headers['x-ratelimit-remaining'])).toBe(Number(fast.headers['x-ratelimit-remaining']) - 1);
    expect(next.body.meta.timestamp).toMatch(ISO);
    // A query or a final slash stays in the answer's own URL, as on the ordinary route.
    for (const odd of [`/database/notes/${rec._id}/`, `/database/notes/${rec._id}?note=%22q%22`]) {
      const links = (await plainGet(odd)).body.links;
      expect(links).toEqual((await v2('GET', odd)).body.links);
      expect(links.self).toBe(`${t.url}/v2/app/demo${odd}`);
    }
    expect((await plainGet(`/database/notes/${rec._id}`, { 'if-none-match': String(fast.headers.etag) })).status).toBe(304);
    expect((await plainGet(`/database/notes/${rec._id}?fields=title`)).body.data).toEqual({ _id: rec._id, title: 'fast' });
    const missing = await plainGet('/database/notes/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: 'NOT_FOUND', message: "Record 'nope' not found", details: {} }, meta: { timestamp: expect.any(String), version: '2' } });
    const anonymous = await new Promise<number>((resolve) => {
      request(`${t.url}/v2/app/demo/database/notes/${rec._id}`, { headers: { authorization: 'Bearer bad' } }, (res) => { res.resume(); resolve(res.statusCode!); }).end();
    });
    expect(anonymous).toBe(401);
  });
});
