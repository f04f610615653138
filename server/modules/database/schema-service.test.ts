// Fields (and record validation against them), views (and ?view=), indexes (and unique 409s).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

let t: TestServer;
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { await t.close(); });

const post = (path: string, body: unknown) => t.req('POST', path, { body });
const ids = (res: { body: { data: Array<{ _id: string }> } }) => res.body.data.map((r) => r._id);

describe('fields', () => {
  beforeAll(async () => {
    await post('/database', { _id: 'typed', setting: { read: 'private', write: 'private', update: 'private' } });
    await post('/database', { _id: 'teams', setting: { read: 'private', write: 'private', update: 'private' } });
    await post('/database/teams', { _id: 'red' });
  });

  it('creates, lists, gets, updates and deletes field definitions', async () => {
    const f = await post('/database/typed/fields', { _id: 'title', name: 'Title', type: 'string', required: true, options: { maxLength: 10 } });
    expect(f.status).toBe(201);
    expect(f.body).toMatchObject({ _id: 'title', name: 'Title', type: 'string', required: true, options: { maxLength: 10 }, createdAt: expect.any(String) });
    // Without _id the name is the key.
    expect((await post('/database/typed/fields', { name: 'count', type: 'integer', default: 0 })).body).toMatchObject({ _id: 'count', name: 'count' });
    const list = await t.req('GET', '/database/typed/fields');
    expect(list.body.meta.total).toBe(2);
    expect(list.body.data.map((x: { _id: string }) => x._id)).toEqual(['title', 'count']);
    expect((await t.req('GET', '/database/typed/fields/title')).body.name).toBe('Title');
    expect((await t.req('GET', '/database/typed/fields/none')).status).toBe(404);
    const put = await t.req('PUT', '/database/typed/fields/title', { body: { name: 'Heading', options: { maxLength: 20 } } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ _id: 'title', name: 'Heading', type: 'string', required: true, options: { maxLength: 20 } });
    expect((await t.req('PATCH', '/database/typed/fields/title', { body: { _id: 'x' } })).body.error.details).toMatchObject({ field: '_id', reason: 'read_only' });
    expect((await t.req('PUT', '/database/typed/fields/none', { body: { name: 'x' } })).status).toBe(404);
    expect((await t.req('GET', '/database/typed')).body.meta.total).toBe(0);
    expect((await t.req('GET', '/database')).body.data.find((c: { _id: string }) => c._id === 'typed').fields).toHaveLength(2);

    await post('/database/typed/fields', { name: 'gone', type: 'boolean', required: true });
    expect((await post('/database/typed', { title: 'x' })).body.error.details).toMatchObject({ field: 'gone', reason: 'required' });
    expect((await t.req('DELETE', '/database/typed/fields/gone')).status).toBe(204);
    expect((await t.req('DELETE', '/database/typed/fields/gone')).status).toBe(404);
    expect((await post('/database/typed', { title: 'x' })).status).toBe(201);
    expect((await t.req('GET', '/database/nope/fields')).status).toBe(404);
  });

  it('validates field definitions', async () => {
    const cases: Array<[unknown, string, string]> = [
      [{ name: 'a' }, 'type', 'required'],
      [{ name: 'a', type: 'text' }, 'type', 'enum'],
      [{ type: 'string' }, '_id', 'required'],
      [{ name: 'Has Space', type: 'string' }, 'name', 'format'],
      [{ _id: '9x', type: 'string' }, '_id', 'format'],
      [{ _id: 'createdAt', type: 'date' }, '_id', 'invalid'],
      [{ _id: 'e', type: 'enum' }, 'options.values', 'required'],
      [{ _id: 'r', type: 'reference' }, 'options.collection', 'required'],
      [{ _id: 'r', type: 'reference', options: { collection: 'missing' } }, 'options.collection', 'invalid'],
      [{ _id: 'd', type: 'number', default: 'ten' }, 'default', 'type'],
      [{ _id: 'd', type: 'enum', options: { values: ['a'] }, default: 'b' }, 'default', 'enum'],
      [{ _id: 'u', type: 'json', unique: true }, 'unique', 'invalid'],
      [{ _id: 'q', type: 'string', required: 'yes' }, 'required', 'type'],
    ];
    for (const [body, field, reason] of cases) {
      const res = await post('/database/typed/fields', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.details, JSON.stringify(body)).toMatchObject({ field, reason });
    }
    expect((await post('/database/typed/fields', { _id: 'title', type: 'string' })).status).toBe(409);
  });

  it('refuses keys named like Object.prototype members (lists could not use them), as _id or as name', async () => {
    for (const key of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'toLocaleString', 'propertyIsEnumerable', 'prototype']) {
      const byId = await post('/database/typed/fields', { _id: key, type: 'string' });
      expect(byId.status, key).toBe(422);
      expect(byId.body.error.details, key).toMatchObject({ field: '_id', reason: 'invalid' });
      const byName = await post('/database/typed/fields', { name: key, type: 'number' });
      expect(byName.status, key).toBe(422);
      expect(byName.body.error.details, key).toMatchObject({ field: 'name', reason: 'invalid' });
      // The same names are refused by lists: a field that exists can always be listed by.
      expect((await t.req('GET', `/database/typed?sort=${key}`)).status, key).toBe(400);
    }
    expect((await post('/database/typed/fields', { _id: '__proto__', type: 'string' })).status).toBe(422);
    // A label may still say anything; only the key is restricted.
    const labelled = await post('/database/typed/fields', { _id: 'ctor', name: 'constructor', type: 'string' });
    expect(labelled.status).toBe(201);
    expect((await t.req('GET', '/database/typed?sort=ctor&filter[ctor][$exists]=false&fields=ctor')).status).toBe(200);
    expect((await t.req('GET', '/database/typed/fields')).body.data.map((f: { _id: string }) => f._id)).not.toContain('constructor');
  });

  it('refuses dates that do not exist instead of rolling them over', async () => {
    await post('/database', { _id: 'cal', setting: { read: 'private', write: 'private', update: 'private' } });
    await post('/database/cal/fields', { _id: 'd', type: 'date' });
    for (const d of ['2024-02-30', '2023-02-29', '2024-04-31', '2024-13-01', '2024-00-10', '2024-01-00', '2024-01-01T24:00', '2024-01-01T23:60',
      '2024-01-01T23:59:60Z', '2024-01-01T10:00+25:00', '2024-1-01']) {
      const res = await post('/database/cal', { d });
      expect(res.status, d).toBe(422);
      expect(res.body.error.details, d).toMatchObject({ field: 'd', reason: 'format' });
    }
    for (const d of ['2024-02-29', '2000-02-29', '2024-12-31T23:59:59.999Z', '2024-01-31 00:00', '2024-06-30T12:00:00+02:00', '2024-06-30T12:00-0530']) {
      const res = await post('/database/cal', { d });
      expect(res.status, d).toBe(201);
      expect(res.body.d).toBe(d); // stored as given
    }
    const rec = (await post('/database/cal', { d: '2024-02-28' })).body;
    expect((await t.req('PATCH', `/database/cal/${rec._id}`, { body: { d: '2024-02-31' } })).body.error.details).toMatchObject({ field: 'd', reason: 'format' });
    // A default is checked the same way.
    expect((await post('/database/cal/fields', { _id: 'e', type: 'date', default: '2023-02-29' })).body.error.details).toMatchObject({ field: 'default', reason: 'format' });
  });

  it('validates records against every type with the contract reasons', async () => {
    await post('/database', { _id: 'v', setting: { read: 'private', write: 'private', update: 'private' } });
    const defs = [
      { _id: 's', type: 'string', options: { minLength: 2, maxLength: 5 } },
      { _id: 'n', type: 'number', options: { min: 0, max: 10 } },
      { _id: 'i', type: 'integer' },
      { _id: 'b', type: 'boolean' },
      { _id: 'd', type: 'date' },
      { _id: 'e', type: 'email' },
      { _id: 'u', type: 'url' },
      { _id: 'en', type: 'enum', options: { values: ['red', 'green'] } },
      { _id: 'j', type: 'json' },
      { _id: 'a', type: 'array', options: { maxLength: 2 } },
      { _id: 'ref', type: 'reference', options: { collection: 'teams' } },
      { _id: 'f', type: 'file' },
      { _id: 'us', type: 'user' },
      { _id: 'req', type: 'string', required: true },
      { _id: 'def', type: 'string', default: 'fallback' },
    ];
    for (const d of defs) expect((await post('/database/v/fields', d)).status).toBe(201);
    const ok = await post('/database/v', {
      s: 'abc', n: 1.5, i: 3, b: false, d: '2024-05-01T10:00:00Z', e: 'a@b.co', u: 'https://example.com/x', en: 'red',
      j: { any: [1, 'x'] }, a: [1], ref: 'red', f: 'file123', req: 'here', extra: 'schemaless extra',
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ def: 'fallback', extra: 'schemaless extra', d: '2024-05-01T10:00:00Z' });
    const bad: Array<[Record<string, unknown>, string, string]> = [
      [{ s: 5 }, 's', 'type'], [{ s: 'a' }, 's', 'too_short'], [{ s: 'abcdef' }, 's', 'too_long'],
      [{ n: '5' }, 'n', 'type'], [{ n: 11 }, 'n', 'invalid'], [{ i: 1.5 }, 'i', 'type'], [{ b: 'true' }, 'b', 'type'],
      [{ d: 'yesterday' }, 'd', 'format'], [{ d: 5 }, 'd', 'type'], [{ e: 'not-an-email' }, 'e', 'format'],
      [{ u: 'not a url' }, 'u', 'format'], [{ en: 'blue' }, 'en', 'enum'], [{ a: 'x' }, 'a', 'type'], [{ a: [1, 2, 3] }, 'a', 'too_long'],
      [{ ref: 'blue' }, 'ref', 'invalid'], [{ ref: 5 }, 'ref', 'type'], [{ us: 'nobody' }, 'us', 'invalid'], [{ f: 1 }, 'f', 'type'],
      [{ req: null }, 'req', 'required'], [{ req: '' }, 'req', 'required'],
    ];
    for (const [body, field, reason] of bad) {
      const res = await post('/database/v', { req: 'r', ...body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details, JSON.stringify(body)).toMatchObject({ field, reason });
    }
    const missing = await post('/database/v', { s: 1 });
    expect(missing.body.error.details.errors).toEqual(expect.arrayContaining([
      expect.objectContaining({ field: 's', reason: 'type' }), expect.objectContaining({ field: 'req', reason: 'required' })]));
    // Updates check only the given fields; a required field may not be cleared.
    const id = ok.body._id;
    expect((await t.req('PATCH', `/database/v/${id}`, { body: { n: 2 } })).status).toBe(200);
    expect((await t.req('PATCH', `/database/v/${id}`, { body: { n: 'two' } })).body.error.details).toMatchObject({ field: 'n', reason: 'type' });
    expect((await t.req('PATCH', `/database/v/${id}`, { body: { req: null } })).body.error.details).toMatchObject({ field: 'req', reason: 'required' });
    expect((await t.req('PATCH', `/database/v/${id}`, { body: { s: null } })).body.s).toBeNull();
    // A user field takes the id of a user who exists.
    const me = await t.req('GET', '/auth/me');
    expect(me.status).toBe(200);
    expect(me.body._id).toEqual(expect.any(String));
    const pointed = await t.req('PATCH', `/database/v/${id}`, { body: { us: me.body._id } });
    expect(pointed.status, pointed.text).toBe(200);
    expect(pointed.body.us).toBe(me.body._id);
  });

  it('enforces unique fields with a real index, and refuses a unique field over duplicates', async () => {
    await post('/database', { _id: 'u1', setting: { read: 'private', write: 'private', update: 'private' } });
    expect((await post('/database/u1/fields', { _id: 'email', type: 'email', unique: true })).status).toBe(201);
    expect((await post('/database/u1', { email: 'a@x.io' })).status).toBe(201);
    const dup = await post('/database/u1', { email: 'a@x.io' });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'CONFLICT', details: { field: 'email' } });
    const other = (await post('/database/u1', { email: 'b@x.io' })).body;
    expect((await t.req('PUT', `/database/u1/${other._id}`, { body: { email: 'a@x.io' } })).status).toBe(409);
    expect((await t.req('GET', `/database/u1/${other._id}`)).body.email).toBe('b@x.io');
    // Records without the field do not collide.
    expect((await post('/database/u1', {})).status).toBe(201);
    expect((await post('/database/u1', {})).status).toBe(201);
    // Turning unique off drops the constraint.
    expect((await t.req('PUT', '/database/u1/fields/email', { body: { unique: false } })).status).toBe(200);
    expect((await post('/database/u1', { email: 'a@x.io' })).status).toBe(201);
    // ...and it cannot come back while duplicates exist; nothing changes.
    const back = await t.req('PUT', '/database/u1/fields/email', { body: { unique: true } });
    expect(back.status).toBe(409);
    expect((await t.req('GET', '/database/u1/fields/email')).body.unique).toBe(false);
    expect((await post('/database/u1', { email: 'a@x.io' })).status).toBe(201);
    const added = await post('/database/u1/fields', { _id: 'code', type: 'string', unique: true });
    expect(added.status).toBe(201);
    await post('/database/u1', { code: 'same' });
    await t.req('DELETE', '/database/u1/fields/code');
    await post('/database/u1', { code: 'same' });
    expect((await post('/database/u1/fields', { _id: 'code', type: 'string', unique: true })).status).toBe(409);
    expect((await t.req('GET', '/database/u1/fields/code')).status).toBe(404);
  });
});

describe('views', () => {
  beforeAll(async () => {
    await post('/database', { _id: 'staff', setting: { read: 'private', write: 'private', update: 'private' } });
    await post('/database/staff/fields', { _id: 'age', type: 'number' });
    for (const [name, role, age] of [['ann', 'admin', 40], ['bob', 'user', 25], ['cid', 'admin', 22], ['dan', 'admin', 31]] as const) {
      await post('/database/staff', { _id: name, name, role, age });
    }
  });

  it('creates, lists, gets, updates and deletes views, validated when saved', async () => {
    const v = await post('/database/staff/views', { _id: 'seniorAdmins', name: 'Senior admins', filter: { role: 'admin', age: { $gte: 25 } }, sort: '-age,name' });
    expect(v.status).toBe(201);
    expect(v.body).toMatchObject({ _id: 'seniorAdmins', name: 'Senior admins', filter: { role: 'admin', age: { $gte: 25 } }, sort: '-age,name' });
    const gen = await post('/database/staff/views', { name: 'All', fields: 'name,age' });
    expect(gen.body._id).toMatch(/^[A-Za-z][A-Za-z0-9]{15}$/);
    expect(gen.body).toMatchObject({ filter: {}, fields: ['name', 'age'] });
    expect((await t.req('GET', '/database/staff/views')).body.meta.total).toBe(2);
    expect((await t.req('GET', '/database/staff/views/seniorAdmins')).body.name).toBe('Senior admins');
    const put = await t.req('PUT', `/database/staff/views/${gen.body._id}`, { body: { name: 'Everyone' } });
    expect(put.body).toMatchObject({ name: 'Everyone', fields: ['name', 'age'] });
    expect((await post('/database/staff/views', { _id: 'seniorAdmins' })).status).toBe(409);
    for (const [body, field] of [[{ filter: { age: { $regex: 'x' } } }, 'filter'], [{ filter: 'role=admin' }, 'filter'], [{ filter: { 'bad path!': 1 } }, 'filter'],
      [{ sort: 'a,,b' }, 'sort'], [{ fields: ['ok', 'not ok'] }, 'fields'], [{ filter: { age: { $gte: 'x' } } }, 'filter']] as const) {
      const res = await post('/database/staff/views', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.details.field).toBe(field);
    }
    expect((await t.req('PUT', '/database/staff/views/seniorAdmins', { body: { _id: 'other' } })).body.error.details.reason).toBe('read_only');
    expect((await t.req('DELETE', `/database/staff/views/${gen.body._id}`)).status).toBe(204);
    expect((await t.req('DELETE', `/database/staff/views/${gen.body._id}`)).status).toBe(404);
    expect((await t.req('PUT', '/database/staff/views/nope', { body: {} })).status).toBe(404);
  });

  it('applies a view with ?view=, combined with the query', async () => {
    const res = await t.req('GET', '/database/staff?view=seniorAdmins');
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(['ann', 'dan']);
    expect(res.body.meta.total).toBe(2);
    expect(ids(await t.req('GET', '/database/staff?view=seniorAdmins&filter[age][$lt]=35'))).toEqual(['dan']);
    expect(ids(await t.req('GET', '/database/staff?view=seniorAdmins&sort=name'))).toEqual(['ann', 'dan']);
    expect((await t.req('GET', '/database/staff?view=seniorAdmins&fields=age')).body.data).toEqual([{ _id: 'ann', age: 40 }, { _id: 'dan', age: 31 }]);
    await post('/database/staff/views', { _id: 'names', fields: ['name'], sort: 'name' });
    expect((await t.req('GET', '/database/staff?view=names&limit=1&offset=1')).body).toEqual({ data: [{ _id: 'bob', name: 'bob' }], meta: { total: 4, limit: 1, offset: 1 } });
    expect((await t.req('GET', '/database/staff?view=missing')).status).toBe(404);
    // An empty view is ignored, like an empty sort.
    const plain = await t.req('GET', '/database/staff?view=&sort=');
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual((await t.req('GET', '/database/staff')).body);
    expect(ids(await t.req('GET', '/database/staff?view=&filter[role]=admin&sort=name'))).toEqual(['ann', 'cid', 'dan']);
  });
});

describe('indexes', () => {
  beforeAll(async () => {
    await post('/database', { _id: 'items', setting: { read: 'private', write: 'private', update: 'private' } });
    await post('/database/items', { sku: 'a', shop: 's1', n: 1 });
    await post('/database/items', { sku: 'a', shop: 's2', n: 2 });
  });

  it('creates, lists and deletes indexes; unique ones refuse duplicates with 409', async () => {
    const plain = await post('/database/items/indexes', { _id: 'bySku', fields: ['sku'] });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ _id: 'bySku', fields: ['sku'], unique: false });
    const store = await t.srv.ctx.registry.require('demo').records('items');
    expect((await store.listIndexes()).some((i) => i.fieldName === 'sku')).toBe(true);
    expect((await store.listIndexes()).some((i) => i.fieldName === '_owner')).toBe(true);

    const clash = await post('/database/items/indexes', { _id: 'skuUnique', fields: ['n', 'sku'], unique: true });
    expect(clash.status).toBe(201);
    const compound = await post('/database/items/indexes', { fields: ['shop', 'sku'], unique: true });
    expect(compound.status).toBe(201);
    expect(compound.body.fields).toEqual(['shop', 'sku']);
    expect((await store.listIndexes()).some((i) => i.fieldName === 'shop,sku')).toBe(true);
    expect((await post('/database/items', { sku: 'a', shop: 's1' })).status).toBe(409);
    expect((await post('/database/items', { sku: 'b', shop: 's1' })).status).toBe(201);

    const failing = await post('/database/items/indexes', { _id: 'skuOnly', fields: ['sku'], unique: true });
    expect(failing.status).toBe(409);
    const afterFail = await t.req('GET', '/database/items/indexes');
    expect(afterFail.body.data.map((i: { _id: string }) => i._id)).toEqual(['bySku', 'skuUnique', compound.body._id]);
    expect((await post('/database/items', { sku: 'a', shop: 's3' })).status).toBe(201);

    expect((await t.req('GET', '/database/items/indexes/bySku')).body.fields).toEqual(['sku']);
    expect((await post('/database/items/indexes', { fields: ['sku'] })).status).toBe(409);
    expect((await post('/database/items/indexes', { _id: 'bySku', fields: ['n'] })).status).toBe(409);
    expect((await t.req('DELETE', `/database/items/indexes/${compound.body._id}`)).status).toBe(204);
    expect((await store.listIndexes()).some((i) => i.fieldName === 'shop,sku')).toBe(false);
    expect((await post('/database/items', { sku: 'a', shop: 's1', n: 99 })).status).toBe(201);
    expect((await t.req('DELETE', `/database/items/indexes/${compound.body._id}`)).status).toBe(404);
    expect((await t.req('DELETE', '/database/items/indexes/bySku')).status).toBe(204);
    expect((await store.listIndexes()).some((i) => i.fieldName === 'sku')).toBe(false);
  });

  it('validates index bodies', async () => {
    for (const [body, field, reason] of [[{}, 'fields', 'required'], [{ fields: [] }, 'fields', 'too_short'], [{ fields: ['a b'] }, 'fields', 'format'],
      [{ fields: ['a', 'a'] }, 'fields', 'invalid'], [{ fields: ['_id'] }, 'fields', 'invalid'], [{ fields: ['x'], unique: 'yes' }, 'unique', 'type'],
      [{ _id: '1', fields: ['x'] }, '_id', 'format'], [{ fields: 'shop,sku' }, 'fields', 'type'], [{ fields: [3] }, 'fields.0', 'type']] as const) {
      const res = await post('/database/items/indexes', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.details).toMatchObject({ field, reason });
    }
    expect((await t.req('GET', '/database/nope/indexes')).status).toBe(404);
    expect((await post('/database/nope/indexes', { fields: ['a'] })).status).toBe(404);
  });

  it('supports dot paths in indexes', async () => {
    await post('/database', { _id: 'nested', setting: { read: 'private', write: 'private', update: 'private' } });
    expect((await post('/database/nested/indexes', { fields: ['profile.handle'], unique: true })).status).toBe(201);
    expect((await post('/database/nested', { profile: { handle: 'x' } })).status).toBe(201);
    expect((await post('/database/nested', { profile: { handle: 'x' } })).status).toBe(409);
    expect((await t.req('GET', '/database/nested?filter[profile.handle]=x')).body.meta.total).toBe(1);
  });
});
