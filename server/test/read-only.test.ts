// The one read-only rule (core/read-only.ts), path by path: every resource refuses a create that
// names a server-managed field and a change that alters one (422 `read_only`, every such field
// named at once), and ignores a change that repeats the current value (a PUT of a GET's body).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestUser } from './harness.js';

let t: TestServer;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  t = await startTestServer();
  alice = await t.user('Alice');
  bob = await t.user('Bob');
  const notes = await t.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'public', write: 'private', update: 'private' } } });
  expect(notes.status, notes.text).toBe(201);
});
afterAll(() => t.close());

interface Path {
  name: string;
  token?: () => string;
  /** Creates one; answers its path (`/webhooks/abc`). */
  create: () => Promise<string>;
  /** POST path and a valid body for the create check (none where a create takes no fields). */
  createWith?: { path: string; body: Record<string, unknown>; readOnly: string[] };
  /** Fields a change may not alter, with a value other than the current one. */
  changes: Record<string, unknown>;
  /** A field a change may make, to show the call is otherwise fine. */
  ok: Record<string, unknown>;
}

const created = async (path: string, body: unknown, token?: string) => {
  const res = await t.req('POST', path, { body, ...(token ? { token } : {}) });
  expect(res.status, `${path}: ${res.text}`).toBe(201);
  return res.body._id as string;
};

const paths: Path[] = [
  {
    name: 'records',
    create: async () => `/database/notes/${await created('/database/notes', { text: 'a' })}`,
    createWith: { path: '/database/notes', body: { text: 'a' }, readOnly: ['createdAt', 'updatedAt'] },
    changes: { _id: 'other', _owner: 'someone', createdAt: '2020-01-01T00:00:00.000Z', updatedAt: '2020-01-01T00:00:00.000Z' },
    ok: { text: 'b' },
  },
  {
    name: 'users',
    create: async () => `/users/${await created('/users', { email: `u${Date.now()}@example.com`, password: 'password-123' })}`,
    createWith: { path: '/users', body: { email: 'ro@example.com', password: 'password-123' }, readOnly: ['_id', 'createdAt', 'updatedAt', 'passwordHash'] },
    changes: { _id: 'other', createdAt: '2020-01-01T00:00:00.000Z', updatedAt: '2020-01-01T00:00:00.000Z', passwordHash: 'x' },
    ok: { name: 'Renamed' },
  },
  {
    name: 'the profile',
    token: () => alice.token,
    create: async () => '/auth/me',
    createWith: { path: '/auth/register', body: { email: 'reg@example.com', password: 'password-123' }, readOnly: ['_id', 'role', 'createdAt'] },
    changes: { _id: 'other', role: 'admin', email: 'new@example.com', password: 'password-456', createdAt: '2020-01-01T00:00:00.000Z' },
    ok: { name: 'Alice B' },
  },
  {
    name: 'channels',
    token: () => alice.token,
    create: async () => `/chats/channels/${await created('/chats/channels', { name: 'general', members: [bob._id] }, alice.token)}`,
    createWith: { path: '/chats/channels', body: { name: 'x' }, readOnly: ['_id', '_owner', 'createdAt'] },
    changes: { _id: 'other', _owner: 'someone', type: 'direct', createdAt: '2020-01-01T00:00:00.000Z' },
    ok: { name: 'renamed' },
  },
  {
    name: 'messages',
    token: () => alice.token,
    create: async () => {
      const channel = await created('/chats/channels', { name: 'talk' }, alice.token);
      return `/chats/messages/${await created(`/chats/${channel}/messages`, { text: 'hi' }, alice.token)}`;
    },
    changes: { _id: 'other', channelId: 'elsewhere', author: { _id: 'x', name: 'X' }, updatedAt: '2020-01-01T00:00:00.000Z' },
    ok: { text: 'edited' },
  },
  {
    name: 'webhooks',
    create: async () => `/webhooks/${await created('/webhooks', { name: 'w', url: 'http://127.0.0.1:9/hook', events: ['*'] })}`,
    createWith: { path: '/webhooks', body: { name: 'w', url: 'http://127.0.0.1:9/hook', events: ['*'] }, readOnly: ['_id', 'createdAt'] },
    changes: { _id: 'other', createdAt: '2020-01-01T00:00:00.000Z', updatedAt: '2020-01-01T00:00:00.000Z' },
    ok: { name: 'renamed' },
  },
  {
    name: 'credentials',
    create: async () => `/credentials/${await created('/credentials', { name: 'API_KEY', value: 'secret-value' })}`,
    createWith: { path: '/credentials', body: { name: 'OTHER_KEY', value: 'v' }, readOnly: ['_id', 'updatedAt'] },
    changes: { _id: 'other', createdAt: '2020-01-01T00:00:00.000Z' },
    ok: { description: 'changed' },
  },
  {
    name: 'scenarios',
    create: async () => `/scenarios/${await created('/scenarios', { name: 's' })}`,
    createWith: { path: '/scenarios', body: { name: 's2' }, readOnly: ['_id', 'createdAt'] },
    changes: { _id: 'other', updatedAt: '2020-01-01T00:00:00.000Z' },
    ok: { name: 'renamed' },
  },
];

describe('read-only fields: one rule on every path', () => {
  for (const p of paths) {
    const as = () => (p.token ? { token: p.token() } : {});

    if (p.createWith) {
      it(`${p.name}: a create naming a server-managed field is refused, each one named`, async () => {
        const { path, body, readOnly } = p.createWith!;
        const values = Object.fromEntries(readOnly.map((f) => [f, f === 'role' ? 'admin' : 'x2020']));
        const res = await t.req('POST', path, { ...as(), body: { ...body, ...values }, ...(path === '/auth/register' ? { token: null } : {}) });
        expect(res.status, res.text).toBe(422);
        expect(res.body.error.details.reason).toBe('read_only');
        expect(res.body.error.details.errors.map((e: { field: string }) => e.field).sort()).toEqual([...readOnly].sort());
      });
    }

    it(`${p.name}: a change altering one is refused and changes nothing; repeating the current value is ignored`, async () => {
      const path = await p.create();
      const before = (await t.req('GET', path, as())).body;
      const refused = await t.req('PATCH', path, { ...as(), body: { ...p.ok, ...p.changes } });
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body.error.details.errors.map((e: { field: string; reason: string }) => [e.field, e.reason]).sort())
        .toEqual(Object.keys(p.changes).map((f) => [f, 'read_only']).sort());
      expect((await t.req('GET', path, as())).body).toEqual(before);

      // The same fields sent back as the GET shows them, with an allowed change: accepted.
      const same = Object.fromEntries(Object.keys(p.changes).filter((f) => f in before).map((f) => [f, before[f]]));
      expect(Object.keys(same).length).toBeGreaterThan(0);
      const echoed = await t.req('PUT', path, { ...as(), body: { ...same, ...p.ok } });
      expect(echoed.status, echoed.text).toBe(200);
      expect(echoed.body).toMatchObject(p.ok);
      expect(echoed.body._id).toBe(before._id);
      expect(echoed.body.createdAt).toBe(before.createdAt);
      expect(echoed.body.updatedAt >= before.updatedAt).toBe(true);
    });
  }
});
