// A partial update answers the same whichever way the driver writes it (the PostgreSQL run of
// this file writes a patch that needs no check against the record in one statement, and falls
// back to reading the record when it cannot tell the answer): a missing record is 404 before any
// check of the body, another owner's record 403 and unchanged, a unique clash 409 naming the
// field with the record unchanged, a reference to nothing 422, system keys repeated are ignored
// and changed refused; the answer, the stored record and the published event agree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import type { BusEvent } from '../../core/bus.js';

let t: TestServer;
const events: BusEvent[] = [];
let owner: { id: string; token: string };
let other: { id: string; token: string };
beforeAll(async () => {
  t = await startTestServer();
  t.srv.ctx.bus.subscribe((e) => { events.push(e); });
  const u1 = await t.user('pu1', { email: 'pu1@example.com' });
  const u2 = await t.user('pu2', { email: 'pu2@example.com' });
  owner = { id: u1._id, token: u1.token };
  other = { id: u2._id, token: u2.token };
  expect((await t.req('POST', '/database', { body: { _id: 'pp', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
  expect((await t.req('POST', '/database/pp/fields', { body: { _id: 'email', type: 'email', unique: true } })).status).toBe(201);
  expect((await t.req('POST', '/database/pp/fields', { body: { _id: 'friend', type: 'reference', options: { collection: 'pp' } } })).status).toBe(201);
  expect((await t.req('POST', '/database', { body: { _id: 'own', setting: { read: 'private', write: 'private', update: 'only-user' } } })).status).toBe(201);
  expect((await t.req('POST', '/database', { body: { _id: 'mine', setting: { read: 'only-user', write: 'private', update: 'private' } } })).status).toBe(201);
});
afterAll(async () => { await t?.close(); });

describe('partial update', () => {
  it('sets the fields sent and keeps the others; the answer, the stored record and the event agree', async () => {
    const rec = (await t.req('POST', '/database/pp', { token: owner.token, body: { email: 'a@example.com', name: 'Ada', age: 30, meta: { x: 1 } } })).body;
    const before = events.length;
    const res = await t.req('PATCH', `/database/pp/${rec._id}`, { token: other.token, body: { age: 31, meta: { y: 2 }, nick: null } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ _id: rec._id, _owner: owner.id, email: 'a@example.com', name: 'Ada', age: 31, meta: { y: 2 }, nick: null, createdAt: rec.createdAt });
    expect(res.body.updatedAt >= rec.updatedAt).toBe(true);
    expect((await t.req('GET', `/database/pp/${rec._id}`, { token: owner.token })).body).toEqual(res.body);
    const published = events.slice(before).filter((e) => e.type === 'record.updated');
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({ collection: 'pp', data: res.body, actor: { _id: other.id } });
    // An empty patch changes updatedAt only.
    const empty = await t.req('PATCH', `/database/pp/${rec._id}`, { token: owner.token, body: {} });
    expect(empty.status).toBe(200);
    expect({ ...empty.body, updatedAt: undefined }).toEqual({ ...res.body, updatedAt: undefined });
  });

  it('a missing record is 404 whatever the body holds', async () => {
    for (const body of [{ age: 1 }, { email: 'not an email' }, { friend: 'nobody' }, { _id: 'other' }, {}]) {
      const res = await t.req('PATCH', '/database/pp/no-such-record', { body });
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await t.req('GET', '/database/pp/no-such-record')).status).toBe(404);
  });

  it('a unique clash is 409 naming the field and changes nothing; a bad field or reference 422', async () => {
    await t.req('POST', '/database/pp', { body: { email: 'taken@example.com' } });
    const rec = (await t.req('POST', '/database/pp', { body: { email: 'b@example.com', n: 1 } })).body;
    const clash = await t.req('PATCH', `/database/pp/${rec._id}`, { body: { email: 'taken@example.com', n: 2 } });
    expect(clash.status, clash.text).toBe(409);
    expect(clash.body.error).toMatchObject({ code: 'CONFLICT', details: { field: 'email' } });
    const bad = await t.req('PATCH', `/database/pp/${rec._id}`, { body: { email: 'nope', n: 3 } });
    expect(bad.status).toBe(422);
    const dangling = await t.req('PATCH', `/database/pp/${rec._id}`, { body: { friend: 'nobody', n: 4 } });
    expect(dangling.status).toBe(422);
    expect(dangling.body.error.details.fields ?? dangling.body.error.details).toBeDefined();
    expect((await t.req('GET', `/database/pp/${rec._id}`)).body).toEqual(rec);
    const linked = await t.req('PATCH', `/database/pp/${rec._id}`, { body: { friend: rec._id } });
    expect(linked.status).toBe(200);
    expect(linked.body.friend).toBe(rec._id);
  });

  it('system keys: repeated values are ignored, a change is refused', async () => {
    const rec = (await t.req('POST', '/database/pp', { body: { email: 'c@example.com' } })).body;
    const same = await t.req('PATCH', `/database/pp/${rec._id}`, { body: { _id: rec._id, createdAt: rec.createdAt, n: 1 } });
    expect(same.status, same.text).toBe(200);
    expect(same.body.n).toBe(1);
    const changed = await t.req('PATCH', `/database/pp/${rec._id}`, { body: { createdAt: '2001-01-01T00:00:00.000Z', n: 2 } });
    expect(changed.status).toBe(422);
    expect((await t.req('GET', `/database/pp/${rec._id}`)).body.n).toBe(1);
  });

  it("update only-user: another user's change is 403 and changes nothing; the owner's and an admin's go through", async () => {
    const rec = (await t.req('POST', '/database/own', { token: owner.token, body: { v: 1 } })).body;
    const denied = await t.req('PATCH', `/database/own/${rec._id}`, { token: other.token, body: { v: 2 } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    expect((await t.req('GET', `/database/own/${rec._id}`, { token: owner.token })).body.v).toBe(1);
    expect((await t.req('PATCH', `/database/own/${rec._id}`, { token: owner.token, body: { v: 3 } })).body.v).toBe(3);
    expect((await t.req('PATCH', `/database/own/${rec._id}`, { body: { v: 4 } })).body.v).toBe(4);
    expect((await t.req('PATCH', '/database/own/missing', { token: other.token, body: { v: 5 } })).status).toBe(404);
    expect((await t.req('PATCH', `/database/own/${rec._id}`, { token: null, body: { v: 6 } })).status).toBe(401);
  });

  it('read only-user: another user may not change a record he may not read (403), nor an anonymous caller (401)', async () => {
    const rec = (await t.req('POST', '/database/mine', { token: owner.token, body: { v: 1 } })).body;
    const denied = await t.req('PATCH', `/database/mine/${rec._id}`, { token: other.token, body: { v: 2 } });
    expect(denied.status).toBe(403);
    expect(denied.text).not.toContain('"v":1');
    expect((await t.req('PATCH', `/database/mine/${rec._id}`, { token: owner.token, body: { v: 3 } })).body.v).toBe(3);
    expect((await t.req('PATCH', `/database/mine/${rec._id}`, { token: null, body: { v: 4 } })).status).toBe(401);
    expect((await t.req('GET', `/database/mine/${rec._id}`, { token: owner.token })).body.v).toBe(3);
  });

  it('field names: a key starting with $, holding a dot or named __proto__ (at any depth) is refused; quotes and braces are kept as they are', async () => {
    const rec = (await t.req('POST', '/database/pp', { body: { n: 1 } })).body;
    for (const body of ['{"$set":{"n":2}}', '{"a.b":2}', '{"meta":{"__proto__":{"isAdmin":true}}}', '{"__proto__":{"n":2}}', '{"meta":{"x":{"$gt":1}}}']) {
      const res = await fetch(`${t.api}/database/pp/${rec._id}`, { method: 'PATCH', headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' }, body });
      expect(res.status, body).toBe(422);
    }
    // A whole replacement (v2's PUT) the same.
    const put = await fetch(`${t.url}/v2/app/${t.workspace}/database/pp/${rec._id}`, { method: 'PUT', headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' }, body: '{"__proto__":{"n":2},"n":1}' });
    expect(put.status).toBe(422);
    expect((await t.req('GET', `/database/pp/${rec._id}`)).body).toEqual(rec);
    const odd = { "it's": 1, 'a"b': 2, '{c}': 3, "x'); DROP TABLE t; --": 4, nested: { "q'": { '}{': 5 } } };
    const res = await t.req('PATCH', `/database/pp/${rec._id}`, { body: odd });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(odd);
    expect((await t.req('GET', `/database/pp/${rec._id}`)).body).toEqual(res.body);
  });
});
