// Records over HTTP: create / get / PUT / PATCH / delete, ids, read-only keys, bad input,
// bus events, and the access rules for anonymous callers, users and admins.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import type { BusEvent } from '../../core/bus.js';

let t: TestServer;
const signedInUser = async (t: TestServer, email: string) => { const u = await t.user(email.split('@')[0], { email }); return { id: u._id, token: u.token }; };
const events: BusEvent[] = [];
beforeAll(async () => {
  t = await startTestServer();
  t.srv.ctx.bus.subscribe((e) => { events.push(e); });
  await t.req('POST', '/database', { body: { _id: 'people', setting: { read: 'public', write: 'public', update: 'private' } } });
});
afterAll(async () => { await t.close(); });

describe('records', () => {
  it('creates, gets, updates (PUT and PATCH, partial) and deletes a record', async () => {
    const created = await t.req('POST', '/database/people', { body: { name: 'Ann', email: 'ann@example.com', age: 31, role: 'admin', tags: ['a'], meta: { x: 1 } } });
    expect(created.status).toBe(201);
    const rec = created.body;
    expect(rec._id).toMatch(/^[A-Za-z][A-Za-z0-9]{15}$/);
    expect(rec).toMatchObject({ name: 'Ann', age: 31, tags: ['a'], meta: { x: 1 }, createdAt: expect.any(String), updatedAt: rec.createdAt });
    expect(new Date(rec.createdAt).toISOString()).toBe(rec.createdAt);

    const got = await t.req('GET', `/database/people/${rec._id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(rec);

    const put = await t.req('PUT', `/database/people/${rec._id}`, { body: { age: 32 } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ _id: rec._id, name: 'Ann', email: 'ann@example.com', age: 32, createdAt: rec.createdAt });
    expect(put.body.updatedAt >= rec.updatedAt).toBe(true);
    const patch = await t.req('PATCH', `/database/people/${rec._id}`, { body: { role: 'user', meta: { y: 2 } } });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ age: 32, role: 'user', meta: { y: 2 } });
    // Sending back system keys with their current values is fine.
    const roundTrip = await t.req('PUT', `/database/people/${rec._id}`, { body: { ...patch.body, name: 'Anna' } });
    expect(roundTrip.status).toBe(200);
    expect(roundTrip.body.name).toBe('Anna');
    expect((await t.req('GET', `/database/people/${rec._id}`)).body.name).toBe('Anna');

    expect((await t.req('DELETE', `/database/people/${rec._id}`)).status).toBe(204);
    expect((await t.req('GET', `/database/people/${rec._id}`)).status).toBe(404);
    expect((await t.req('DELETE', `/database/people/${rec._id}`)).status).toBe(404);
    expect((await t.req('PUT', `/database/people/${rec._id}`, { body: { a: 1 } })).status).toBe(404);
  });

  it('accepts client ids with the pattern and refuses bad, reserved and duplicate ones', async () => {
    const mine = await t.req('POST', '/database/people', { body: { _id: 'ann-1', name: 'Ann' } });
    expect(mine.status).toBe(201);
    expect(mine.body._id).toBe('ann-1');
    const dup = await t.req('POST', '/database/people', { body: { _id: 'ann-1' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'CONFLICT', details: { field: '_id' } });
    for (const [id, reason] of [['1abc', 'format'], ['has space', 'format'], ['x'.repeat(65), 'format'], [7, 'type'], ['fields', 'invalid'], ['views', 'invalid'], ['indexes', 'invalid']] as const) {
      const res = await t.req('POST', '/database/people', { body: { _id: id } });
      expect(res.status, String(id)).toBe(422);
      expect(res.body.error.details).toMatchObject({ field: '_id', reason });
    }
  });

  it('reserves fields, views and indexes as record ids in any case (routes ignore case)', async () => {
    for (const id of ['Fields', 'VIEWS', 'Indexes', 'fIeLdS']) {
      const res = await t.req('POST', '/database/people', { body: { _id: id, name: 'x' } });
      expect(res.status, id).toBe(422);
      expect(res.body.error.details, id).toMatchObject({ field: '_id', reason: 'invalid' });
    }
    // What such an id would have reached: the schema routes, not a record.
    expect((await t.req('GET', '/database/people/Fields')).body).toMatchObject({ data: [], meta: { total: 0 } });
    // Ids that only contain the words stay free.
    expect((await t.req('POST', '/database/people', { body: { _id: 'Fields2' } })).status).toBe(201);
    expect((await t.req('GET', '/database/people/Fields2')).body._id).toBe('Fields2');
  });

  it('treats _id, _owner, createdAt and updatedAt as read-only', async () => {
    for (const key of ['createdAt', 'updatedAt']) {
      const res = await t.req('POST', '/database/people', { body: { [key]: '2020-01-01T00:00:00.000Z' } });
      expect(res.status).toBe(422);
      expect(res.body.error.details).toMatchObject({ field: key, reason: 'read_only' });
    }
    const rec = (await t.req('POST', '/database/people', { body: { name: 'B' } })).body;
    for (const [key, value] of [['_id', 'other'], ['_owner', 'someone'], ['createdAt', '2020-01-01T00:00:00.000Z'], ['updatedAt', 'x']]) {
      const res = await t.req('PATCH', `/database/people/${rec._id}`, { body: { [key]: value } });
      expect(res.status, key).toBe(422);
      expect(res.body.error.details).toMatchObject({ field: key, reason: 'read_only' });
    }
    const user = await signedInUser(t, 'owner-tester@example.com');
    const byUser = await t.req('POST', '/database/people', { token: user.token, body: { _owner: 'someone-else' } });
    expect(byUser.body.error.details).toMatchObject({ field: '_owner', reason: 'read_only' });
    // An admin may create a record on behalf of a user.
    const onBehalf = await t.req('POST', '/database/people', { body: { _owner: user.id, name: 'for user' } });
    expect(onBehalf.status).toBe(201);
    expect(onBehalf.body._owner).toBe(user.id);
  });

  it('stores field names nedb cannot hold as a clean 422, never a 500', async () => {
    for (const body of [{ $set: 1 }, { 'a.b': 1 }, { nested: { $gt: 1 } }, { list: [{ 'x.y': 1 }] }]) {
      const res = await t.req('POST', '/database/people', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.details.reason).toBe('format');
    }
    const res = await t.req('POST', '/database/people', { body: { nested: { $gt: 1 } } });
    expect(res.body.error.details.field).toBe('nested.$gt');
    const proto = await fetch(`${t.api}/database/people`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"__proto__":{"polluted":1}}' });
    expect(proto.status).toBe(422);
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = { d: deep };
    const deepRes = await t.req('POST', '/database/people', { body: { deep } });
    expect(deepRes.status).toBe(422);
    expect(deepRes.body.error.details.reason).toBe('invalid');
    const rec = (await t.req('POST', '/database/people', { body: { name: 'C' } })).body;
    expect((await t.req('PUT', `/database/people/${rec._id}`, { body: { 'a.b': 1 } })).status).toBe(422);
  });

  it('answers unknown collections and records with 404, and bad bodies with 400/413/415', async () => {
    expect((await t.req('GET', '/database/nope')).status).toBe(404);
    expect((await t.req('GET', '/database/nope/abc')).status).toBe(404);
    expect((await t.req('POST', '/database/nope', { body: {} })).status).toBe(404);
    expect((await t.req('PUT', '/database/nope/abc', { body: {} })).status).toBe(404);
    expect((await t.req('DELETE', '/database/nope/abc')).status).toBe(404);
    expect((await t.req('GET', '/database/people/abc')).body.error.code).toBe('NOT_FOUND');
    expect((await t.req('GET', '/database/people/%E2%82%AC')).status).toBe(404);
    for (const path of ['/database/people/%E0%A4%A', '/database/%ZZ', '/database/people/%00', '/database/people?filter[__proto__]=1',
      '/database/people?sort=__proto__', '/database/people?fields=__proto__.polluted', '/database/people?filter[constructor][$exists]=true']) {
      const res = await t.req('GET', path);
      expect(res.status, path).toBeLessThan(500);
      expect(res.body.error?.code ?? 'ok', path).not.toBe('INTERNAL');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const raw = (method: string, body: string, type = 'application/json') =>
      fetch(`${t.api}/database/people${method === 'POST' ? '' : '/ann-1'}`, { method, headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': type }, body });
    for (const method of ['POST', 'PUT', 'PATCH']) {
      expect((await raw(method, '{bad')).status).toBe(400);
      expect((await raw(method, '[]')).status).toBe(400);
      expect((await raw(method, 'null')).status).toBe(400);
      expect((await raw(method, 'a=1', 'text/plain')).status).toBe(415);
      expect((await raw(method, JSON.stringify({ pad: 'x'.repeat(1.1 * 1024 * 1024) }))).status).toBe(413);
    }
  });

  it('publishes record events with the collection, the actor and the record', async () => {
    events.length = 0;
    const rec = (await t.req('POST', '/database/people', { body: { name: 'Evt' } })).body;
    await t.req('PUT', `/database/people/${rec._id}`, { body: { name: 'Evt2' } });
    await t.req('DELETE', `/database/people/${rec._id}`);
    const mine = events.filter((e) => e.type.startsWith('record.'));
    expect(mine.map((e) => e.type)).toEqual(['record.created', 'record.updated', 'record.deleted']);
    for (const e of mine) expect(e).toMatchObject({ app: 'demo', collection: 'people', actor: { _id: expect.any(String), role: 'admin' } });
    expect(mine[0].data).toMatchObject({ _id: rec._id, name: 'Evt' });
    expect(mine[1].data).toMatchObject({ _id: rec._id, name: 'Evt2' });
    expect(mine[2].data).toMatchObject({ _id: rec._id, name: 'Evt2' });
    events.length = 0;
    await t.req('POST', '/database/people', { token: null, body: { name: 'anon' } });
    expect(events[0].type).toBe('record.created');
    expect(events[0].actor).toBeUndefined();
  });
});

describe('access rules', () => {
  let user: { id: string; token: string };
  let other: { id: string; token: string };
  beforeAll(async () => {
    user = await signedInUser(t, 'user1@example.com');
    other = await signedInUser(t, 'user2@example.com');
    await t.req('POST', '/database', { body: { _id: 'priv', setting: { read: 'private', write: 'private', update: 'private' } } });
    await t.req('POST', '/database', { body: { _id: 'mine', setting: { read: 'only-user', write: 'private', update: 'only-user' } } });
    await t.req('POST', '/database', { body: { _id: 'open', setting: { read: 'public', write: 'public', update: 'private', remove: 'only-user' } } });
  });

  it('private: anonymous gets 401, any signed-in user may act', async () => {
    expect((await t.req('GET', '/database/priv', { token: null })).status).toBe(401);
    expect((await t.req('POST', '/database/priv', { token: null, body: { a: 1 } })).status).toBe(401);
    const rec = await t.req('POST', '/database/priv', { token: user.token, body: { a: 1 } });
    expect(rec.status).toBe(201);
    expect(rec.body._owner).toBe(user.id);
    expect((await t.req('GET', `/database/priv/${rec.body._id}`, { token: null })).status).toBe(401);
    expect((await t.req('GET', `/database/priv/${rec.body._id}`, { token: other.token })).status).toBe(200);
    expect((await t.req('PUT', `/database/priv/${rec.body._id}`, { token: null, body: { a: 2 } })).status).toBe(401);
    expect((await t.req('PUT', `/database/priv/${rec.body._id}`, { token: other.token, body: { a: 2 } })).status).toBe(200);
    expect((await t.req('DELETE', `/database/priv/${rec.body._id}`, { token: null })).status).toBe(401);
    expect((await t.req('DELETE', `/database/priv/${rec.body._id}`, { token: other.token })).status).toBe(204);
    expect((await t.req('GET', '/database/priv', { token: 'not-a-jwt' })).status).toBe(401);
  });

  it('only-user: users see, count and change only their own records; admins see all', async () => {
    const a = (await t.req('POST', '/database/mine', { token: user.token, body: { n: 1 } })).body;
    await t.req('POST', '/database/mine', { token: user.token, body: { n: 2 } });
    const b = (await t.req('POST', '/database/mine', { token: other.token, body: { n: 3 } })).body;
    const own = await t.req('GET', '/database/mine', { token: user.token });
    expect(own.status).toBe(200);
    expect(own.body.meta.total).toBe(2);
    expect(own.body.data.every((r: { _owner: string }) => r._owner === user.id)).toBe(true);
    expect((await t.req('GET', '/database/mine?limit=0', { token: other.token })).body).toEqual({ data: [], meta: { total: 1, limit: 0, offset: 0 } });
    expect((await t.req('GET', '/database/mine?filter[n]=3', { token: user.token })).body.meta.total).toBe(0);
    expect((await t.req('GET', '/database/mine', { token: null })).status).toBe(401);
    expect((await t.req('GET', '/database/mine')).body.meta.total).toBe(3);

    expect((await t.req('GET', `/database/mine/${a._id}`, { token: user.token })).status).toBe(200);
    const denied = await t.req('GET', `/database/mine/${a._id}`, { token: other.token });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    expect((await t.req('PUT', `/database/mine/${a._id}`, { token: other.token, body: { n: 9 } })).status).toBe(403);
    expect((await t.req('DELETE', `/database/mine/${a._id}`, { token: other.token })).status).toBe(403);
    expect((await t.req('PUT', `/database/mine/${b._id}`, { token: other.token, body: { n: 4 } })).body.n).toBe(4);
    expect((await t.req('PUT', `/database/mine/${a._id}`, { body: { n: 5 } })).status).toBe(200);
    expect((await t.req('DELETE', `/database/mine/${a._id}`, { token: user.token })).status).toBe(204);
  });

  it('never hands a record to a caller who may not read it: a change answers as GET would and changes nothing', async () => {
    // read only-user, update/remove private: the write rule alone would let any user through.
    await t.req('POST', '/database', { body: { _id: 'secret', setting: { read: 'only-user', write: 'private', update: 'private' } } });
    await t.req('POST', '/database', { body: { _id: 'secret2', setting: { read: 'only-user', write: 'private', update: 'private', remove: 'private' } } });
    for (const c of ['secret', 'secret2']) {
      const rec = (await t.req('POST', `/database/${c}`, { token: user.token, body: { pin: '1234' } })).body;
      const path = `/database/${c}/${rec._id}`;
      // [method, caller, body, expected status]
      const matrix: Array<[string, string | null, unknown, number]> = [
        ['GET', other.token, undefined, 403],
        ['PUT', other.token, {}, 403],
        ['PUT', other.token, { pin: '0000' }, 403],
        ['PATCH', other.token, {}, 403],
        ['PATCH', other.token, { pin: '0000' }, 403],
        ['DELETE', other.token, undefined, 403],
        ['GET', null, undefined, 401],
        ['PUT', null, {}, 401],
        ['DELETE', null, undefined, 401],
      ];
      for (const [method, token, body, status] of matrix) {
        const res = await t.req(method, path, { token, ...(body === undefined ? {} : { body }) });
        expect(res.status, `${c} ${method} ${JSON.stringify(body)} by ${token ? 'other user' : 'anonymous'}`).toBe(status);
        expect(res.text, `${method} leaks the record`).not.toContain('1234');
        expect(res.body.error.code).toBe(status === 403 ? 'FORBIDDEN' : 'UNAUTHORIZED');
      }
      // Nothing changed, and the record is still there.
      const mine = await t.req('GET', path, { token: user.token });
      expect(mine.status).toBe(200);
      expect(mine.body).toEqual(rec);
      // The owner and admins still may.
      expect((await t.req('PATCH', path, { token: user.token, body: { pin: '5678' } })).body.pin).toBe('5678');
      expect((await t.req('PUT', path, { body: { pin: '9999' } })).body.pin).toBe('9999');
      expect((await t.req('DELETE', path, { token: user.token })).status).toBe(204);
    }
    // read private: any signed-in user may read, so may change under update private (as before).
    const shared = (await t.req('POST', '/database/priv', { token: user.token, body: { v: 1 } })).body;
    expect((await t.req('PUT', `/database/priv/${shared._id}`, { token: other.token, body: {} })).status).toBe(200);
  });

  it('public: anonymous may read and write; remove follows its own setting', async () => {
    const anon = await t.req('POST', '/database/open', { token: null, body: { x: 1 } });
    expect(anon.status).toBe(201);
    expect(anon.body._owner).toBeUndefined();
    expect((await t.req('GET', '/database/open', { token: null })).body.meta.total).toBe(1);
    expect((await t.req('GET', `/database/open/${anon.body._id}`, { token: null })).status).toBe(200);
    expect((await t.req('PUT', `/database/open/${anon.body._id}`, { token: null, body: { x: 2 } })).status).toBe(401);
    const owned = (await t.req('POST', '/database/open', { token: user.token, body: { x: 3 } })).body;
    expect((await t.req('DELETE', `/database/open/${owned._id}`, { token: other.token })).status).toBe(403);
    expect((await t.req('DELETE', `/database/open/${owned._id}`, { token: user.token })).status).toBe(204);
  });

  it('keeps schema management for admins: users get 403', async () => {
    for (const [method, path] of [['GET', '/database'], ['POST', '/database'], ['PUT', '/database/open'], ['DELETE', '/database/open'],
      ['GET', '/database/open/fields'], ['POST', '/database/open/fields'], ['GET', '/database/open/views'], ['POST', '/database/open/indexes']]) {
      const res = await t.req(method, path, { token: user.token, ...(method === 'GET' || method === 'DELETE' ? {} : { body: { _id: 'zz', type: 'string', fields: ['a'] } }) });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
  });
});

describe('service functions (as scenario steps call them)', () => {
  it('create, get, list, update and delete without HTTP, carrying depth into events', async () => {
    const svc = await import('./service.js');
    const ctx = t.srv.ctx;
    const ws = ctx.registry.require('demo');
    events.length = 0;
    const rec = await svc.createRecord(ctx, ws, 'people', { name: 'from step' }, { auth: null, depth: 2 });
    expect(rec).toMatchObject({ name: 'from step', _id: expect.any(String) });
    expect(events.at(-1)).toMatchObject({ type: 'record.created', collection: 'people', depth: 2 });
    expect((await svc.getRecord(ctx, ws, 'people', rec._id, { auth: null })).name).toBe('from step');
    const list = await svc.listRecords(ctx, ws, 'people', { 'filter[name]': 'from step' }, { auth: null });
    expect(list.meta.total).toBe(1);
    // The collection's update rule is private: an anonymous step may not update.
    await expect(svc.updateRecord(ctx, ws, 'people', rec._id, { name: 'x' }, { auth: null })).rejects.toMatchObject({ status: 401 });
    expect(svc.getCollection(ws, 'people')._id).toBe('people');
    await expect(svc.getRecord(ctx, ws, 'nope', 'x', { auth: null })).rejects.toMatchObject({ status: 404 });
    await expect(svc.createRecord(ctx, ws, 'people', { age: 1, 'bad.key': 1 }, { auth: null })).rejects.toMatchObject({ status: 422 });
  });
});
