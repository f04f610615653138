// If-Match on the v2 changes of every resource served through a v1 route (records have theirs
// in rest.test.ts), over HTTP on both drivers: a stale tag is a 412 naming the current tag and
// nothing changes (no write, no event); the current tag or `*` lets the change through and its
// answer carries the new tag; a malformed header is a 400; two changes sending the same tag
// cannot both succeed; a missing resource stays a 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestUser } from '../test/harness.js';
import type { BusEvent } from '../core/bus.js';
import { v2Client } from './v2-client.js';

let t: TestServer;
let v2: ReturnType<typeof v2Client>;
let member: TestUser;
const events: BusEvent[] = [];

beforeAll(async () => {
  t = await startTestServer();
  v2 = v2Client(t);
  member = await t.user('Member');
  t.srv.ctx.bus.subscribe((e) => { events.push(e); });
});
afterAll(async () => { await t?.close(); });

interface Case { name: string; make: () => Promise<string>; change: Record<string, unknown>; check: string; token?: () => string }

const cases: Case[] = [
  {
    name: 'a webhook', check: 'name', change: { name: 'renamed' },
    make: async () => (await v2('POST', '/webhooks', { body: { name: 'hook', url: 'http://localhost:9/x', events: ['record.*'], active: false } })).body.data._id,
  },
  {
    name: 'a user', check: 'name', change: { name: 'Renamed' },
    make: async () => (await v2('POST', '/users', { body: { email: `u${Math.random().toString(36).slice(2)}@example.test`, password: 'user-password-1', name: 'U', role: 'user' } })).body.data._id,
  },
  {
    name: 'a field', check: 'name', change: { name: 'Renamed' },
    make: async () => { await v2('POST', '/database', { body: { _id: 'withfields', name: 'withfields', setting: { read: 'public', write: 'private', update: 'private' } } }); const f = `f${Math.random().toString(36).slice(2, 8)}`; await v2('POST', '/database/withfields/fields', { body: { _id: f, name: f, type: 'string' } }); return `withfields/fields/${f}`; },
  },
  {
    name: 'a secret', check: 'description', change: { description: 'changed' },
    make: async () => (await v2('POST', '/credentials', { body: { name: `S${Math.random().toString(36).slice(2, 8).toUpperCase()}`, description: 'first', value: 'secret-value-1' } })).body.data._id,
  },
  {
    name: 'a channel', check: 'name', change: { name: 'renamed' }, token: () => member.token,
    make: async () => (await v2('POST', '/chats/channels', { token: member.token, body: { name: 'room', type: 'group', members: [] } })).body.data._id,
  },
];

const pathOf: Record<string, (id: string) => string> = {
  'a webhook': (id) => `/webhooks/${id}`, 'a user': (id) => `/users/${id}`,
  'a field': (id) => `/database/${id}`, 'a secret': (id) => `/credentials/${id}`, 'a channel': (id) => `/chats/channels/${id}`,
};

describe('If-Match beyond records', () => {
  for (const c of cases) {
    it(`${c.name}: 412 on a stale tag with nothing changed, 200 with the current one, 400 when malformed`, async () => {
      const token = c.token?.() ?? t.adminToken;
      const path = pathOf[c.name](await c.make());
      const read = await v2('GET', path, { token });
      expect(read.status).toBe(200);
      const tag = read.headers.get('etag')!;
      expect(tag).toMatch(/^"[^"]+"$/);

      const mark = events.length;
      const stale = await v2('PATCH', path, { token, body: c.change, headers: { 'if-match': '"not-the-tag"' } });
      expect(stale.status).toBe(412);
      expect(stale.body.error.code).toBe('PRECONDITION_FAILED');
      expect(stale.body.error.details.etag).toBe(tag);
      const weak = await v2('PUT', path, { token, body: c.change, headers: { 'if-match': `W/${tag}` } });
      expect(weak.status).toBe(412);
      expect(events.length).toBe(mark);
      const still = await v2('GET', path, { token });
      expect(still.body.data).toEqual(read.body.data);
      expect(still.headers.get('etag')).toBe(tag);

      const malformed = await v2('PATCH', path, { token, body: c.change, headers: { 'if-match': 'no-quotes' } });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.details.field).toBe('If-Match');

      // Two changes sending the current tag at once: one wins, the other is told it is stale.
      const [a, b] = await Promise.all([
        v2('PATCH', path, { token, body: c.change, headers: { 'if-match': tag } }),
        v2('PATCH', path, { token, body: c.change, headers: { 'if-match': tag } }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 412]);
      const won = a.status === 200 ? a : b;
      expect(won.body.data[c.check]).toBe(c.change[c.check]);
      const after = await v2('GET', path, { token });
      expect(won.headers.get('etag')).toBe(after.headers.get('etag'));
      expect(after.headers.get('etag')).not.toBe(tag);

      // DELETE: a stale tag keeps the resource; `*` deletes it; then the missing one is a 404.
      expect((await v2('DELETE', path, { token, headers: { 'if-match': tag } })).status).toBe(412);
      expect((await v2('GET', path, { token })).status).toBe(200);
      expect((await v2('DELETE', path, { token, headers: { 'if-match': '*' } })).status).toBe(204);
      expect((await v2('PATCH', path, { token, body: c.change, headers: { 'if-match': '*' } })).status).toBe(404);
    });
  }

  it('a collection: its tag is the one a change of it answers (its own path lists its records)', async () => {
    expect((await v2('POST', '/database', { body: { _id: 'tagged', name: 'tagged', setting: { read: 'public', write: 'private', update: 'private' } } })).status).toBe(201);
    const first = await v2('PATCH', '/database/tagged', { body: { name: 'A' } });
    expect(first.status).toBe(200);
    const tag = first.headers.get('etag')!;
    const stale = await v2('PATCH', '/database/tagged', { body: { name: 'B' }, headers: { 'if-match': '"stale"' } });
    expect(stale.status).toBe(412);
    expect(stale.body.error.details.etag).toBe(tag);
    const listed = (await v2('GET', '/database?limit=100')).body.data.find((c: { _id: string }) => c._id === 'tagged');
    expect(listed.name).toBe('A');
    const ok = await v2('PUT', '/database/tagged', { body: { name: 'B', setting: { read: 'public', write: 'private', update: 'private' } }, headers: { 'if-match': tag } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.name).toBe('B');
    const next = ok.headers.get('etag')!;
    expect(next).not.toBe(tag);
    expect((await v2('DELETE', '/database/tagged', { headers: { 'if-match': tag } })).status).toBe(412);
    expect((await v2('DELETE', '/database/tagged', { headers: { 'if-match': next } })).status).toBe(204);
    expect((await v2('PATCH', '/database/tagged', { body: { name: 'C' }, headers: { 'if-match': '*' } })).status).toBe(404);
  });

  it('the signed-in user: If-Match on PUT /auth/me', async () => {
    const me = await v2('GET', '/auth/me', { token: member.token });
    const tag = me.headers.get('etag')!;
    expect((await v2('PUT', '/auth/me', { token: member.token, body: { name: 'x' }, headers: { 'if-match': '"old"' } })).status).toBe(412);
    expect((await v2('GET', '/auth/me', { token: member.token })).body.data.name).toBe(me.body.data.name);
    const ok = await v2('PUT', '/auth/me', { token: member.token, body: { name: 'Member Two' }, headers: { 'if-match': tag } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.name).toBe('Member Two');
  });
});
