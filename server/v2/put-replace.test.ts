// v2's PUT replaces the whole resource in every group that has one (records are in rest.test.ts):
// an optional field not sent is removed or back to its creation default (read back by GET), a
// required field not sent is a 422 naming it with nothing written, the server's fields are kept;
// v1's PUT on the same resource stays a partial update. Batch PUT operations and If-Match too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Res, type TestServer } from '../test/harness.js';
import type { BusEvent } from '../core/bus.js';
import { makeCollection, v2Client, type V2Res } from './v2-client.js';

let t: TestServer;
let v2: ReturnType<typeof v2Client>;
const events: BusEvent[] = [];

beforeAll(async () => {
  t = await startTestServer();
  v2 = v2Client(t);
  t.srv.ctx.bus.subscribe((e) => { events.push(e); });
  await makeCollection(t, 'notes');
});

/** The kinds of the events published by `fn`. */
async function published(fn: () => Promise<unknown>): Promise<string[]> {
  const mark = events.length;
  await fn();
  return events.slice(mark).map((e) => e.type);
}
afterAll(async () => { await t?.close(); });

/** A 422 naming `field` among its errors. */
function expectNames(res: V2Res | Res, field: string, reason = 'required'): void {
  expect(res.status, res.text).toBe(422);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  expect(res.body.error.details.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field, reason })]));
  expect(res.body.error.message).toContain(field);
}

/** The resource as v2 and v1 read it, checked equal. */
async function read(path: string): Promise<Record<string, unknown>> {
  const got = await v2('GET', path);
  expect(got.status, got.text).toBe(200);
  const v1 = await t.req('GET', path);
  expect(v1.body).toEqual(got.body.data);
  return got.body.data;
}

/** The stored document of a workspace store (to see what no answer shows). */
async function stored(store: string, id: string): Promise<Record<string, unknown> | undefined> {
  return (await (await t.srv.ctx.registry.require('demo').store(store)).get(id)) as Record<string, unknown> | undefined;
}

describe('webhooks', () => {
  it('PUT replaces: filter and batch removed, active back to true, the signing secret kept; url required', async () => {
    const made = await t.req('POST', '/webhooks', {
      body: { name: 'h', url: 'http://127.0.0.1:9/a', events: ['record.*'], active: false, filter: { collection: 'notes' }, batch: { maxEvents: 5, maxWaitMs: 1000 } },
    });
    expect(made.status).toBe(201);
    const id = made.body._id;
    const secret = (await stored('webhooks', id))!.sealedSecret;

    const put = await v2('PUT', `/webhooks/${id}`, { body: { name: 'h2', url: 'http://127.0.0.1:9/b', events: ['*'] } });
    expect(put.status, put.text).toBe(200);
    const now = await read(`/webhooks/${id}`);
    expect(now).toEqual({ _id: id, name: 'h2', url: 'http://127.0.0.1:9/b', events: ['*'], active: true, createdAt: made.body.createdAt, updatedAt: expect.any(String) });
    expect(put.body.data).toEqual(now);
    expect((await stored('webhooks', id))!.sealedSecret).toBe(secret);

    const missing = await v2('PUT', `/webhooks/${id}`, { body: { name: 'h3', events: ['*'], active: false } });
    expectNames(missing, 'url');
    expect(await read(`/webhooks/${id}`)).toEqual(now);

    // v1's PUT: the fields sent only.
    const v1 = await t.req('PUT', `/webhooks/${id}`, { body: { active: false } });
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({ name: 'h2', url: 'http://127.0.0.1:9/b', events: ['*'], active: false });
    // `null` stands for an absent filter, as on v1's change.
    const withNull = await v2('PUT', `/webhooks/${id}`, { body: { name: 'h4', url: 'http://127.0.0.1:9/b', events: ['*'], filter: null, batch: null } });
    expect(withNull.status, withNull.text).toBe(200);
    expect(withNull.body.data).not.toHaveProperty('filter');
  });
});

describe('secrets', () => {
  it('PUT replaces type and description (back to their defaults), keeps the write-only value unless sent; name required', async () => {
    const ws = t.srv.ctx.registry.require('demo');
    const { secretValues } = await import('../modules/credentials/index.js');
    const made = await t.req('POST', '/credentials', { body: { name: 'API_TOKEN', type: 'token', description: 'the token', value: 'first-value' } });
    expect(made.status).toBe(201);
    const id = made.body._id;

    const put = await v2('PUT', `/credentials/${id}`, { body: { name: 'API_TOKEN_2' } });
    expect(put.status, put.text).toBe(200);
    const now = await read(`/credentials/${id}`);
    expect(now).toEqual({ _id: id, name: 'API_TOKEN_2', type: 'generic', description: '', createdAt: made.body.createdAt, updatedAt: expect.any(String) });
    expect((await secretValues(ws)).get('API_TOKEN_2')).toBe('first-value');

    const withValue = await v2('PUT', `/credentials/${id}`, { body: { name: 'API_TOKEN_2', type: 'token', value: 'second-value' } });
    expect(withValue.status).toBe(200);
    expect(withValue.body.data).not.toHaveProperty('value');
    expect((await secretValues(ws)).get('API_TOKEN_2')).toBe('second-value');

    const before = await read(`/credentials/${id}`);
    expectNames(await v2('PUT', `/credentials/${id}`, { body: { description: 'no name', value: 'third-value' } }), 'name');
    expect(await read(`/credentials/${id}`)).toEqual(before);
    expect((await secretValues(ws)).get('API_TOKEN_2')).toBe('second-value');

    const v1 = await t.req('PUT', `/credentials/${id}`, { body: { description: 'v1 change' } });
    expect(v1.body).toMatchObject({ name: 'API_TOKEN_2', type: 'token', description: 'v1 change' });
  });
});

describe('scenarios', () => {
  it('PUT replaces: description removed, trigger and steps back to a manual trigger and none; name required', async () => {
    const made = await t.req('POST', '/scenarios', {
      body: { name: 's', description: 'd', trigger: { type: 'event', events: ['record.created'] }, steps: [{ type: 'delay', ms: 10 }] },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.body._id;

    const put = await v2('PUT', `/scenarios/${id}`, { body: { name: 's2' } });
    expect(put.status, put.text).toBe(200);
    const now = await read(`/scenarios/${id}`);
    expect(now).toEqual({ _id: id, name: 's2', active: false, trigger: { type: 'manual' }, steps: [], createdAt: made.body.createdAt, updatedAt: expect.any(String) });

    expectNames(await v2('PUT', `/scenarios/${id}`, { body: { description: 'no name', steps: [] } }), 'name');
    expect(await read(`/scenarios/${id}`)).toEqual(now);
    // `active` changes by activation only: repeating it is allowed, changing it refused.
    expect((await v2('PUT', `/scenarios/${id}`, { body: { name: 's3', active: false } })).status).toBe(200);
    expect((await v2('PUT', `/scenarios/${id}`, { body: { name: 's3', active: true } })).status).toBe(422);

    await t.req('PATCH', `/scenarios/${id}`, { body: { description: 'kept?' } });
    const v1 = await t.req('PUT', `/scenarios/${id}`, { body: { name: 's4' } });
    expect(v1.body).toMatchObject({ name: 's4', description: 'kept?' });
  });
});

describe('users', () => {
  it('PUT replaces the profile: name and role back to their defaults, other profile fields removed, the password kept; email required', async () => {
    const made = await t.req('POST', '/users', { body: { email: 'replace-me@example.test', password: 'first-password', name: 'Ann', role: 'editor', team: 'blue' } });
    expect(made.status, made.text).toBe(201);
    const id = made.body._id;

    let put!: V2Res;
    expect(await published(async () => { put = await v2('PUT', `/users/${id}`, { body: { email: 'Replaced@example.test', city: 'Oslo' } }); })).toEqual(['user.updated']);
    expect(put.status, put.text).toBe(200);
    const now = await read(`/users/${id}`);
    expect(now).toEqual({ _id: id, email: 'replaced@example.test', name: '', role: 'user', city: 'Oslo', createdAt: made.body.createdAt, updatedAt: expect.any(String) });
    const login = await t.req('POST', '/auth/login', { token: null, body: { email: 'replaced@example.test', password: 'first-password' } });
    expect(login.status, login.text).toBe(200);

    expect(await published(async () => expectNames(await v2('PUT', `/users/${id}`, { body: { name: 'No email', role: 'admin' } }), 'email'))).toEqual([]);
    expect(await read(`/users/${id}`)).toEqual(now);
    expectNames(await v2('PUT', `/users/${id}`, { body: { email: 'replaced@example.test', _id: 'other' } }), '_id', 'read_only');

    const v1 = await t.req('PUT', `/users/${id}`, { body: { name: 'Bea' } });
    expect(v1.body).toMatchObject({ email: 'replaced@example.test', name: 'Bea', role: 'user', city: 'Oslo' });
  });

  it('a PUT that leaves out the role of the last administrator is refused like a demotion (409), nothing written', async () => {
    const me = (await v2('GET', '/auth/me')).body.data;
    const put = await v2('PUT', `/users/${me._id}`, { body: { email: me.email, name: me.name } });
    expect(put.status).toBe(409);
    expect(put.body.error.details.field).toBe('role');
    expect(await read(`/users/${me._id}`)).toEqual(me);
  });
});

describe('/auth/me', () => {
  it('PUT replaces the profile (name back to empty, other fields removed); email and role kept', async () => {
    const user = await t.user('Profiled');
    const o = { token: user.token };
    expect((await t.req('PATCH', '/auth/me', { ...o, body: { name: 'Pat', bio: 'hello' } })).status).toBe(200);

    const put = await v2('PUT', '/auth/me', { ...o, body: { site: 'example.test' } });
    expect(put.status, put.text).toBe(200);
    const now = (await v2('GET', '/auth/me', o)).body.data;
    expect(now).toEqual({ _id: user._id, email: user.email, name: '', role: 'user', site: 'example.test', createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect(put.body.data).toEqual(now);

    // The read-only fields may be repeated (a PUT of what GET answered), not changed.
    expect((await v2('PUT', '/auth/me', { ...o, body: { ...now, name: 'Again' } })).status).toBe(200);
    const changedRole = await v2('PUT', '/auth/me', { ...o, body: { name: 'Boss', role: 'admin' } });
    expectNames(changedRole, 'role', 'read_only');
    expect((await v2('GET', '/auth/me', o)).body.data).toMatchObject({ name: 'Again', role: 'user', site: 'example.test' });

    const v1 = await t.req('PUT', '/auth/me', { ...o, body: { name: 'V1' } });
    expect(v1.body).toMatchObject({ name: 'V1', site: 'example.test' });
  });
});

describe('chats', () => {
  it('a channel: PUT removes the description and, without members, leaves the owner alone; a group name required', async () => {
    const other = await t.user('Member');
    const made = await t.req('POST', '/chats/channels', { body: { name: 'general', description: 'talk', members: [other._id] } });
    expect(made.status, made.text).toBe(201);
    const id = made.body._id;

    const put = await v2('PUT', `/chats/channels/${id}`, { body: { name: 'renamed' } });
    expect(put.status, put.text).toBe(200);
    const now = await read(`/chats/channels/${id}`);
    expect(now).toEqual({ _id: id, name: 'renamed', type: 'group', members: [made.body._owner], _owner: made.body._owner, createdAt: made.body.createdAt, updatedAt: expect.any(String) });

    expect(await published(async () => expectNames(await v2('PUT', `/chats/channels/${id}`, { body: { description: 'no name', members: [other._id] } }), 'name'))).toEqual([]);
    expect(await read(`/chats/channels/${id}`)).toEqual(now);

    const withMembers = await v2('PUT', `/chats/channels/${id}`, { body: { name: 'renamed', members: [other._id] } });
    expect(withMembers.body.data.members).toEqual([made.body._owner, other._id]);
    const v1 = await t.req('PUT', `/chats/channels/${id}`, { body: { description: 'v1' } });
    expect(v1.body).toMatchObject({ name: 'renamed', description: 'v1', members: [made.body._owner, other._id] });
  });

  it('a direct channel keeps its members (they may be repeated)', async () => {
    const other = await t.user('Direct');
    const made = await t.req('POST', '/chats/channels', { body: { type: 'direct', members: [other._id] } });
    expect(made.status, made.text).toBe(201);
    const put = await v2('PUT', `/chats/channels/${made.body._id}`, { body: { description: 'dm' } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data.members).toEqual(made.body.members);
    expect((await v2('PUT', `/chats/channels/${made.body._id}`, { body: { members: made.body.members } })).status).toBe(200);
    expectNames(await v2('PUT', `/chats/channels/${made.body._id}`, { body: { members: [made.body._owner] } }), 'members', 'read_only');
  });

  it('a message: PUT sets the type back to text; text required', async () => {
    const channel = await t.req('POST', '/chats/channels', { body: { name: 'msgs' } });
    const made = await t.req('POST', `/chats/${channel.body._id}/messages`, { body: { text: 'hello', type: 'note' } });
    expect(made.status, made.text).toBe(201);
    const id = made.body._id;

    let put!: V2Res;
    expect(await published(async () => { put = await v2('PUT', `/chats/messages/${id}`, { body: { text: 'edited' } }); })).toEqual(['message.updated']);
    expect(put.status, put.text).toBe(200);
    const now = await read(`/chats/messages/${id}`);
    expect(now).toEqual({ ...made.body, text: 'edited', type: 'text', updatedAt: expect.any(String) });

    expect(await published(async () => expectNames(await v2('PUT', `/chats/messages/${id}`, { body: { type: 'note' } }), 'text'))).toEqual([]);
    expect(await read(`/chats/messages/${id}`)).toEqual(now);

    const v1 = await t.req('PUT', `/chats/messages/${id}`, { body: { type: 'note' } });
    expect(v1.body).toMatchObject({ text: 'edited', type: 'note' });
  });
});

describe('collections, fields, views', () => {
  it('a collection: PUT replaces its settings (name back to the id, remove back to following update); setting required; fields kept', async () => {
    const made = await t.req('POST', '/database', {
      body: { _id: 'things', name: 'Things', setting: { read: 'public', write: 'private', update: 'only-user', remove: 'private' }, fields: [{ _id: 'title', type: 'string' }] },
    });
    expect(made.status, made.text).toBe(201);

    const put = await v2('PUT', '/database/things', { body: { setting: { read: 'private', write: 'private', update: 'private' } } });
    expect(put.status, put.text).toBe(200);
    const now = (await v2('GET', '/database?filter[_id]=things')).body.data[0];
    expect(now).toEqual({ ...made.body, name: 'things', setting: { read: 'private', write: 'private', update: 'private' }, updatedAt: expect.any(String) });
    expect(put.body.data).toEqual(now);

    expectNames(await v2('PUT', '/database/things', { body: { name: 'No setting' } }), 'setting');
    expectNames(await v2('PUT', '/database/things', { body: { setting: { read: 'public' } } }), 'setting.write');
    expect((await v2('GET', '/database?filter[_id]=things')).body.data[0]).toEqual(now);

    const v1 = await t.req('PUT', '/database/things', { body: { name: 'Things again' } });
    expect(v1.body).toMatchObject({ name: 'Things again', setting: { read: 'private', write: 'private', update: 'private' } });
  });

  it('a field: PUT removes the settings not sent (name back to the key); type required', async () => {
    const made = await t.req('POST', '/database/notes/fields', { body: { _id: 'score', name: 'Score', type: 'integer', required: true, default: 0, options: { min: 0 } } });
    expect(made.status, made.text).toBe(201);

    const put = await v2('PUT', '/database/notes/fields/score', { body: { type: 'integer' } });
    expect(put.status, put.text).toBe(200);
    const now = await read('/database/notes/fields/score');
    expect(now).toEqual({ _id: 'score', name: 'score', type: 'integer', createdAt: made.body.createdAt, updatedAt: expect.any(String) });
    // Records follow the new definition: score is no longer required.
    expect((await v2('POST', '/database/notes', { body: { title: 'no score' } })).status).toBe(201);

    expectNames(await v2('PUT', '/database/notes/fields/score', { body: { name: 'Typeless', required: true } }), 'type');
    expect(await read('/database/notes/fields/score')).toEqual(now);

    await t.req('PATCH', '/database/notes/fields/score', { body: { options: { max: 10 } } });
    const v1 = await t.req('PUT', '/database/notes/fields/score', { body: { name: 'Score' } });
    expect(v1.body).toMatchObject({ name: 'Score', type: 'integer', options: { max: 10 } });
  });

  it('a view: PUT removes filter, sort and fields not sent (name back to the id)', async () => {
    const made = await t.req('POST', '/database/notes/views', { body: { _id: 'recent', name: 'Recent', filter: { title: 'a' }, sort: '-createdAt', fields: ['title'] } });
    expect(made.status, made.text).toBe(201);

    const put = await v2('PUT', '/database/notes/views/recent', { body: {} });
    expect(put.status, put.text).toBe(200);
    const now = await read('/database/notes/views/recent');
    expect(now).toEqual({ _id: 'recent', name: 'recent', filter: {}, createdAt: made.body.createdAt, updatedAt: expect.any(String) });

    expectNames(await v2('PUT', '/database/notes/views/recent', { body: { _id: 'other' } }), '_id', 'read_only');
    expect(await read('/database/notes/views/recent')).toEqual(now);

    await t.req('PATCH', '/database/notes/views/recent', { body: { sort: 'title' } });
    const v1 = await t.req('PUT', '/database/notes/views/recent', { body: { name: 'R' } });
    expect(v1.body).toMatchObject({ name: 'R', sort: 'title' });
  });
});

describe('batch and If-Match', () => {
  it('a batch PUT operation replaces as a PUT request does, and a missing required field fails it with nothing written', async () => {
    const made = await t.req('POST', '/credentials', { body: { name: 'BATCHED', type: 'token', description: 'd', value: 'v' } });
    const id = made.body._id;
    const batch = (body: unknown) => fetch(`${t.url}/v2/batch`, {
      method: 'POST', headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

    const plain = await batch({ operations: [{ method: 'PUT', path: `/app/demo/credentials/${id}`, body: { name: 'BATCHED' } }] });
    expect(plain.status).toBe(200);
    expect(plain.body.data[0].status).toBe(200);
    expect(plain.body.data[0].body.data).toMatchObject({ name: 'BATCHED', type: 'generic', description: '' });

    const before = await read(`/credentials/${id}`);
    const atomic = await batch({
      atomic: true,
      operations: [
        { method: 'PUT', path: `/app/demo/credentials/${id}`, body: { name: 'BATCHED', description: 'changed' } },
        { method: 'PUT', path: `/app/demo/credentials/${id}`, body: { description: 'no name' } },
      ],
    });
    expect(atomic.status).toBe(422);
    expect(atomic.body.error.details.index).toBe(1);
    expect(await read(`/credentials/${id}`)).toEqual(before);
  });

  it('If-Match on a replacing PUT: a stale tag is a 412 with nothing written, the current one replaces', async () => {
    const made = await t.req('POST', '/webhooks', { body: { name: 'tagged', url: 'http://127.0.0.1:9/t', events: ['*'], filter: { collection: 'notes' } } });
    const path = `/webhooks/${made.body._id}`;
    const tag = (await v2('GET', path)).headers.get('etag')!;
    await t.req('PATCH', path, { body: { name: 'moved on' } });
    const stale = await v2('PUT', path, { body: { name: 'x', url: 'http://127.0.0.1:9/x', events: ['*'] }, headers: { 'if-match': tag } });
    expect(stale.status).toBe(412);
    const current = await v2('GET', path);
    expect(current.body.data).toMatchObject({ name: 'moved on', filter: { collection: 'notes' } });
    const ok = await v2('PUT', path, { body: { name: 'x', url: 'http://127.0.0.1:9/x', events: ['*'] }, headers: { 'if-match': current.headers.get('etag')! } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data).not.toHaveProperty('filter');
    expect(ok.headers.get('etag')).toBe((await v2('GET', path)).headers.get('etag'));
  });
});

describe('resources without PUT', () => {
  it('API keys and OAuth clients are not changed in place: PUT is a 405 with Allow', async () => {
    const key = await v2('POST', '/api-keys', { body: { name: 'k', scopes: ['database:read'] } });
    const put = await v2('PUT', `/api-keys/${key.body.data._id}`, { body: { name: 'k2', scopes: ['database:read'] } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('DELETE, GET, HEAD');
    const client = await v2('POST', '/oauth/clients', { body: { name: 'c', redirectUris: ['http://127.0.0.1:9/cb'], scopes: ['database:read'], confidential: true } });
    expect((await v2('PUT', `/oauth/clients/${client.body.data._id}`, { body: { name: 'c2' } })).status).toBe(405);
  });
});
