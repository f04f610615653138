// API keys over HTTP: managed at /v2/app/{app_id}/api-keys by an administrator, sent as
// X-API-Key on v1 and v2, each scope opening its group and nothing more, a key's own records,
// expiry by the workspace's clock, revocation at once.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { makeCollection, v2Client } from '../../v2/v2-client.js';
import { API_KEY_SCOPES } from './scopes.js';

let t: TestServer;
let v2: ReturnType<typeof v2Client>;
const CLOCK = '/workspaces/demo/clock';

beforeAll(async () => {
  t = await startTestServer();
  v2 = v2Client(t);
  await makeCollection(t, 'notes');
  const mine = await t.req('POST', '/database', { body: { _id: 'diary', name: 'diary', setting: { read: 'only-user', write: 'private', update: 'only-user' } } });
  expect(mine.status).toBe(201);
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => { await remintAdmin(await t.consoleReq('DELETE', CLOCK)); });

async function remintAdmin<T>(res: T): Promise<T> {
  t.adminToken = (await t.consoleReq('POST', '/workspaces/demo/token')).body.token;
  return res;
}

async function newKey(scopes: string[], extra: Record<string, unknown> = {}): Promise<{ key: string; id: string; principalId: string }> {
  const res = await v2('POST', '/api-keys', { body: { name: `key ${scopes.join(' ')}`, scopes, ...extra } });
  expect(res.status).toBe(201);
  return { key: res.body.data.key, id: res.body.data._id, principalId: res.body.data.principalId };
}

const withKey = (key: string) => ({ token: null, headers: { 'x-api-key': key } });

describe('managing keys', () => {
  it('creates a key shown once, lists keys without values, revokes one at once', async () => {
    const created = await v2('POST', '/api-keys', { body: { name: 'ci', scopes: ['database:read'] } });
    expect(created.status).toBe(201);
    const { data } = created.body;
    expect(data).toMatchObject({ name: 'ci', scopes: ['database:read'], expiresAt: null, principalId: `key_${data._id}`, prefix: `hbk_${data._id}` });
    expect(data.key).toMatch(new RegExp(`^hbk_${data._id}_[A-Za-z0-9_-]{43}$`));
    expect(created.headers.get('location')).toBe(`${t.url}/v2/app/demo/api-keys/${data._id}`);
    expect(created.body.meta.version).toBe('2');

    const list = await v2('GET', '/api-keys');
    expect(list.status).toBe(200);
    const listed = list.body.data.find((k: { _id: string }) => k._id === data._id);
    expect(listed).toMatchObject({ name: 'ci', scopes: ['database:read'] });
    expect(list.text).not.toContain(data.key.slice(21));
    expect(JSON.stringify(listed)).not.toMatch(/key"|hash/i);
    expect((await v2('GET', `/api-keys/${data._id}`)).body.data).toEqual(listed);

    expect((await t.req('GET', '/database/notes', withKey(data.key))).status).toBe(200);
    expect((await v2('DELETE', `/api-keys/${data._id}`)).status).toBe(204);
    const revoked = await t.req('GET', '/database/notes', withKey(data.key));
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe('UNAUTHORIZED');
    expect((await v2('GET', '/database/notes', withKey(data.key))).status).toBe(401);
    expect((await v2('DELETE', `/api-keys/${data._id}`)).status).toBe(404);
    expect((await v2('GET', '/api-keys')).body.data.some((k: { _id: string }) => k._id === data._id)).toBe(false);
  });

  it('refuses bad bodies with 422 naming the field, non-admins with 403, keys with 403, no caller with 401', async () => {
    const badScope = await v2('POST', '/api-keys', { body: { name: 'x', scopes: ['database:delete'] } });
    expect(badScope.status).toBe(422);
    expect(badScope.body.error.details.field).toBe('scopes.0');
    const noName = await v2('POST', '/api-keys', { body: { scopes: ['database:read'] } });
    expect(noName.status).toBe(422);
    expect(noName.body.error.details.field).toBe('name');
    const past = await v2('POST', '/api-keys', { body: { name: 'x', scopes: ['database:read'], expiresAt: '2000-01-01T00:00:00Z' } });
    expect(past.status).toBe(422);
    expect(past.body.error.details.field).toBe('expiresAt');

    const user = await t.user('plain');
    expect((await v2('GET', '/api-keys', { token: user.token })).status).toBe(403);
    expect((await v2('GET', '/api-keys', { token: null })).status).toBe(401);
    const { key } = await newKey([...API_KEY_SCOPES]);
    const byKey = await v2('POST', '/api-keys', { ...withKey(key), body: { name: 'y', scopes: ['database:read'] } });
    expect(byKey.status).toBe(403);
    expect((await t.req('GET', '/auth/me', withKey(key))).status).toBe(403);
    const graphql = await v2('POST', '/graphql', { ...withKey(key), body: { query: '{ __typename }' } });
    expect(graphql.status).toBe(403);
  });

  it('answers 401 to an unknown or malformed key, and 400 to a key sent with a bearer token', async () => {
    const { key } = await newKey(['database:read']);
    const forged = `${key.slice(0, -4)}AAAA`;
    for (const bad of [forged, 'hbk_nope', 'x'.repeat(70)]) {
      const res = await t.req('GET', '/database/notes', withKey(bad));
      expect(res.status).toBe(401);
    }
    const both = await t.req('GET', '/database/notes', { headers: { 'x-api-key': key } });
    expect(both.status).toBe(400);
  });
});

describe('scopes', () => {
  // [scope, v1 path, method, body] allowed with the scope, refused without it.
  const cases: Array<[string, string, string, unknown?]> = [
    ['database:read', '/database/notes', 'GET'],
    ['database:write', '/database/notes', 'POST', { title: 'by key' }],
    ['storage:read', '/storage', 'GET'],
    ['chats:read', '/chats/channels', 'GET'],
    ['chats:write', '/chats/channels', 'POST', { name: 'by key', type: 'group' }],
    ['users:read', '/users', 'GET'],
    ['users:admin', '/users', 'POST', { email: `made-by-key-${Date.now()}@example.com`, password: 'long-enough-1' }],
    ['automation:admin', '/webhooks', 'GET'],
    ['automation:admin', '/scenarios', 'GET'],
    ['automation:admin', '/credentials', 'GET'],
  ];
  for (const [scope, path, method, body] of cases) {
    it(`${scope} opens ${method} ${path} on v1 and v2; a key without it gets 403 naming it`, async () => {
      const others = API_KEY_SCOPES.filter((s) => s !== scope);
      const allowed = await newKey([scope]);
      const refused = await newKey(others);
      const v1Ok = await t.req(method, path, { ...withKey(allowed.key), body });
      expect(v1Ok.status, v1Ok.text).toBeLessThan(300);
      const v1No = await t.req(method, path, { ...withKey(refused.key), body });
      expect(v1No.status).toBe(403);
      expect(v1No.body.error).toMatchObject({ code: 'FORBIDDEN', details: { scope } });
      const v2No = await v2(method, path, { ...withKey(refused.key), body });
      expect(v2No.status).toBe(403);
      expect(v2No.body.error.details.scope).toBe(scope);
      if (method === 'GET') expect((await v2(method, path, withKey(allowed.key))).status).toBe(200);
    });
  }

  it('storage:write opens uploads; storage:read does not', async () => {
    const form = () => { const f = new FormData(); f.append('file', new Blob(['hello']), 'hello.txt'); return f; };
    const reader = await newKey(['storage:read']);
    const writer = await newKey(['storage:write', 'storage:read']);
    const no = await fetch(`${t.api}/storage/upload`, { method: 'POST', headers: { 'x-api-key': reader.key }, body: form() });
    expect(no.status).toBe(403);
    expect((await no.json()).error.details.scope).toBe('storage:write');
    const yes = await fetch(`${t.api}/storage/upload`, { method: 'POST', headers: { 'x-api-key': writer.key }, body: form() });
    expect(yes.status).toBe(201);
    const file = await yes.json();
    const down = await fetch(`${t.api}/storage/${file._id}/download`, { headers: { 'x-api-key': reader.key } });
    expect(down.status).toBe(200);
    expect(await down.text()).toBe('hello');
  });

  it('a record GET by id (the fast path) checks the scope too', async () => {
    const made = await t.req('POST', '/database/notes', { body: { title: 'one' } });
    const reader = await newKey(['database:read']);
    const other = await newKey(['chats:read']);
    expect((await t.req('GET', `/database/notes/${made.body._id}`, withKey(reader.key))).status).toBe(200);
    const no = await t.req('GET', `/database/notes/${made.body._id}`, withKey(other.key));
    expect(no.status).toBe(403);
    expect(no.body.error.details.scope).toBe('database:read');
  });

  it('database:write does not make a key an administrator: collections stay admin-only', async () => {
    const { key } = await newKey(['database:read', 'database:write']);
    const res = await t.req('POST', '/database', { ...withKey(key), body: { _id: 'bykey', name: 'bykey' } });
    expect(res.status).toBe(403);
  });
});

describe('a key as a principal', () => {
  it('owns the only-user records it creates; others, and other keys, do not see them', async () => {
    const a = await newKey(['database:read', 'database:write']);
    const b = await newKey(['database:read', 'database:write']);
    const made = await v2('POST', '/database/diary', { ...withKey(a.key), body: { text: 'mine' } });
    expect(made.status).toBe(201);
    expect(made.body.data._owner).toBe(a.principalId);
    const id = made.body.data._id;
    expect((await t.req('GET', `/database/diary/${id}`, withKey(a.key))).status).toBe(200);
    expect((await t.req('GET', `/database/diary/${id}`, withKey(b.key))).status).toBe(403);
    const listA = await t.req('GET', '/database/diary', withKey(a.key));
    expect(listA.body.data.map((r: { _id: string }) => r._id)).toEqual([id]);
    expect((await t.req('GET', '/database/diary', withKey(b.key))).body.data).toEqual([]);
    const user = await t.user('diarist');
    expect((await t.req('GET', `/database/diary/${id}`, { token: user.token })).status).toBe(403);
    expect((await t.req('PUT', `/database/diary/${id}`, { ...withKey(a.key), body: { text: 'changed' } })).status).toBe(200);
    expect((await t.req('PUT', `/database/diary/${id}`, { ...withKey(b.key), body: { text: 'nope' } })).status).toBe(403);
  });

  it('passes private rules (a signed-in principal) where an anonymous caller is refused', async () => {
    const { key } = await newKey(['database:write']);
    expect((await t.req('POST', '/database/notes', { token: null, body: { title: 'anon' } })).status).toBe(401);
    const res = await t.req('POST', '/database/notes', { ...withKey(key), body: { title: 'key' } });
    expect(res.status).toBe(201);
  });
});

describe('expiry', () => {
  it('a key stops working when the workspace clock passes its expiresAt', async () => {
    const now = Date.parse((await t.consoleReq('GET', CLOCK)).body.now);
    const { key } = await newKey(['database:read'], { expiresAt: new Date(now + 3_600_000).toISOString() });
    expect((await t.req('GET', '/database/notes', withKey(key))).status).toBe(200);
    await remintAdmin(await t.consoleReq('POST', `${CLOCK}/advance`, { ms: 3_600_001 }));
    const expired = await t.req('GET', '/database/notes', withKey(key));
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toMatch(/expired/);
  });
});

describe('keys and the workspace\'s content', () => {
  it('exports leave keys out; a snapshot restore neither revives a revoked key nor drops a live one; a fork starts without keys', async () => {
    const old = await newKey(['database:read']);
    const dump = await t.consoleReq('GET', '/workspaces/demo/export');
    expect(dump.status).toBe(200);
    expect(dump.text).not.toContain(old.id);

    expect((await t.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'with-old-key', overwrite: true })).status).toBe(201);
    expect((await v2('DELETE', `/api-keys/${old.id}`)).status).toBe(204);
    const kept = await newKey(['database:read']);
    expect((await t.consoleReq('POST', '/workspaces/demo/snapshots/with-old-key/restore')).status).toBe(200);
    await remintAdmin(undefined);
    expect((await t.req('GET', '/database/notes', withKey(old.key))).status).toBe(401);
    expect((await t.req('GET', '/database/notes', withKey(kept.key))).status).toBe(200);

    const fork = await t.consoleReq('POST', '/workspaces/demo/fork', { _id: 'keyless' });
    expect(fork.status).toBe(201);
    const inFork = await fetch(`${t.url}/app/keyless/database/notes`, { headers: { 'x-api-key': kept.key } });
    expect(inFork.status).toBe(401);
    expect((await t.consoleReq('DELETE', '/workspaces/keyless')).status).toBe(204);
  });
});
