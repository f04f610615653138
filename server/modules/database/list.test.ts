// Record lists over HTTP: limit / offset / sort / fields, every filter operator,
// dot paths, coercion with and without a schema, meta.total; and indexes surviving a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';

let t: TestServer;
const ids = (res: { body: { data: Array<{ _id: string }> } }) => res.body.data.map((r) => r._id);
const get = (q: string) => t.req('GET', `/database/${q}`);

beforeAll(async () => {
  t = await startTestServer();
  await t.req('POST', '/database', { body: { _id: 'many', setting: { read: 'private', write: 'private', update: 'private' } } });
  for (let i = 0; i < 120; i++) await t.req('POST', '/database/many', { body: { _id: `r${String(i).padStart(3, '0')}`, i } });
  // Schemaless: values of mixed types.
  await t.req('POST', '/database', { body: { _id: 'loose', setting: { read: 'private', write: 'private', update: 'private' } } });
  const rows = [
    { _id: 'a', name: 'Ann', age: 31, role: 'admin', active: true, tags: ['x', 'y'], profile: { city: 'Oslo', zip: '0150' }, note: null },
    { _id: 'b', name: 'Bob', age: '25', role: 'user', active: 'true', tags: ['y'], profile: { city: 'Bergen' } },
    { _id: 'c', name: 'Cid', age: 25, role: 'user', active: false, profile: { city: 'oslo' } },
    { _id: 'd', name: 'dora', age: 40, role: 'admin', tags: [], note: 'null' },
  ];
  for (const r of rows) await t.req('POST', '/database/loose', { body: r });
  // The same data with a schema: coercion follows the field types.
  await t.req('POST', '/database', { body: { _id: 'typed', setting: { read: 'private', write: 'private', update: 'private' } } });
  await t.req('POST', '/database/typed/fields', { body: { _id: 'age', type: 'number' } });
  await t.req('POST', '/database/typed/fields', { body: { _id: 'code', type: 'string' } });
  await t.req('POST', '/database/typed/fields', { body: { _id: 'ok', type: 'boolean' } });
  for (const [id, age, code, ok] of [['p', 25, '25', true], ['q', 30, '030', false], ['r', 7, 'true', true]] as const) {
    await t.req('POST', '/database/typed', { body: { _id: id, age, code, ok } });
  }
});
afterAll(async () => { await t.close(); });

describe('pagination and shape', () => {
  it('defaults to 50, clamps to 100, limit=0 gives only the total, offset skips', async () => {
    const def = await get('many');
    expect(def.body.data).toHaveLength(50);
    expect(def.body.meta).toEqual({ total: 120, limit: 50, offset: 0 });
    expect(ids(def)[0]).toBe('r000');
    const big = await get('many?limit=500');
    expect(big.body.data).toHaveLength(100);
    expect(big.body.meta.limit).toBe(100);
    expect((await get('many?limit=0')).body).toEqual({ data: [], meta: { total: 120, limit: 0, offset: 0 } });
    const page = await get('many?limit=5&offset=117');
    expect(ids(page)).toEqual(['r117', 'r118', 'r119']);
    expect(page.body.meta).toEqual({ total: 120, limit: 5, offset: 117 });
    expect((await get('many?offset=500')).body).toEqual({ data: [], meta: { total: 120, limit: 50, offset: 500 } });
  });

  it('rejects malformed list parameters with 400', async () => {
    for (const q of ['limit=-1', 'limit=abc', 'limit=1.5', 'offset=-3', 'offset=x', 'limit=1&limit=2', 'sort=a,,b', 'sort=bad%20path',
      'fields=a,%24b', 'filter[age][$regex]=x', 'filter[age][$where]=1', 'filter[a]b=1', 'filter=1', 'filter[]=1', 'filter[age][$gt][x]=1',
      'filter[i][$exists]=maybe', 'view=a&view=b']) {
      const res = await get(`many?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('BAD_REQUEST');
    }
  });

  it('sorts by one or several fields, ascending or descending', async () => {
    expect(ids(await get('loose?sort=name'))).toEqual(['a', 'b', 'c', 'd']);
    expect(ids(await get('loose?sort=-_id'))).toEqual(['d', 'c', 'b', 'a']);
    expect(ids(await get('loose?sort=role,-name'))).toEqual(['d', 'a', 'c', 'b']);
    expect(ids(await get('many?sort=-i&limit=2'))).toEqual(['r119', 'r118']);
    expect(ids(await get('many?sort=-createdAt,-_id&limit=1'))).toEqual(['r119']);
    expect(ids(await get('loose?sort=profile.city'))).toEqual(['d', 'b', 'a', 'c']);
  });

  it('returns only the requested fields plus _id', async () => {
    const res = await get('loose?fields=name,profile.city&sort=_id&limit=2');
    expect(res.body.data).toEqual([{ _id: 'a', name: 'Ann', profile: { city: 'Oslo' } }, { _id: 'b', name: 'Bob', profile: { city: 'Bergen' } }]);
  });

  it('keeps the shape of arrays of objects when picking fields inside them', async () => {
    await t.req('POST', '/database', { body: { _id: 'orders', setting: { read: 'private', write: 'private', update: 'private' } } });
    await t.req('POST', '/database/orders', { body: {
      _id: 'o1', items: [{ name: 'a', qty: 1, sku: 'x' }, { name: 'b', qty: 2 }, { qty: 3 }, 'loose'], meta: { tags: [{ k: 'p', v: 1 }] },
    } });
    const pick = async (fields: string) => (await get(`orders?fields=${fields}`)).body.data[0];
    expect(await pick('items.name')).toEqual({ _id: 'o1', items: [{ name: 'a' }, { name: 'b' }, {}] });
    expect(await pick('items.name,items.qty')).toEqual({ _id: 'o1', items: [{ name: 'a', qty: 1 }, { name: 'b', qty: 2 }, { qty: 3 }] });
    expect(await pick('meta.tags.k')).toEqual({ _id: 'o1', meta: { tags: [{ k: 'p' }] } });
    // A numeric segment keeps the element(s) it names.
    expect(await pick('items.1.name')).toEqual({ _id: 'o1', items: [{ name: 'b' }] });
    // The whole array wins over a path inside it, in either order.
    expect((await pick('items.name,items')).items).toHaveLength(4);
    expect((await pick('items,items.name')).items).toHaveLength(4);
  });
});

describe('filters', () => {
  const cases: Array<[string, string[]]> = [
    ['filter[role]=admin', ['a', 'd']],
    ['filter[role][$eq]=admin', ['a', 'd']],
    ['filter[role][$ne]=admin', ['b', 'c']],
    ['filter[age]=25', ['b', 'c']],
    ['filter[age][$gte]=31', ['a', 'd']],
    ['filter[age][$gt]=31', ['d']],
    // Schemaless: the string '25' of b compares with the string reading of the value.
    ['filter[age][$lte]=25', ['b', 'c']],
    ['filter[age][$lt]=31', ['b', 'c']],
    ['filter[name][$in]=Ann,Cid', ['a', 'c']],
    ['filter[name][$nin]=Ann,Cid', ['b', 'd']],
    ['filter[tags][$exists]=true', ['a', 'b', 'd']],
    ['filter[tags][$exists]=false', ['c']],
    ['filter[name][$contains]=o', ['b', 'd']],
    ['filter[tags][$contains]=x', ['a']],
    ['filter[name][$startsWith]=d', ['d']],
    ['filter[profile.city]=Oslo', ['a']],
    ['filter[profile.city][$startsWith]=oslo', ['a', 'c']],
    ['filter[profile.zip][$exists]=true', ['a']],
    ['filter[active]=true', ['a', 'b']],
    ['filter[note]=null', ['a', 'd']],
    ['filter[tags]=y', ['a', 'b']],
    ['filter[role]=admin&filter[age][$gte]=35', ['d']],
    ['filter[age][$gte]=25&filter[age][$lt]=40', ['a', 'b', 'c']],
    ['filter[missing]=1', []],
  ];
  for (const [q, expected] of cases) {
    it(q, async () => {
      const res = await get(`loose?${q}&sort=_id`);
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(expected);
      expect(res.body.meta.total).toBe(expected.length);
    });
  }

  it('compares ranges with a numeric-looking value as numbers only, never as text (schemaless)', async () => {
    // b holds the string "25": as text, "25" >= "100" and "25" > "3"; as a number it is neither.
    expect(ids(await get('loose?filter[age][$gte]=100'))).toEqual([]);
    expect(ids(await get('loose?filter[age][$gt]=3&sort=_id'))).toEqual(['a', 'b', 'c', 'd']);
    expect(ids(await get('loose?filter[age][$lt]=100&sort=_id'))).toEqual(['a', 'b', 'c', 'd']);
    expect(ids(await get('loose?filter[age][$lte]=3'))).toEqual([]);
    // Equality still matches the typed value and the string.
    expect(ids(await get('loose?filter[age]=25&sort=_id'))).toEqual(['b', 'c']);
    // profile.zip "0150" reads as 150.
    expect(ids(await get('loose?filter[profile.zip][$gt]=149'))).toEqual(['a']);
  });

  it('compares ranges of ISO dates as instants', async () => {
    await t.req('POST', '/database', { body: { _id: 'events', setting: { read: 'private', write: 'private', update: 'private' } } });
    await t.req('POST', '/database/events/fields', { body: { _id: 'at', type: 'date' } });
    const rows: Array<[string, string]> = [
      ['e1', '2024-03-01T10:00:00Z'],
      ['e2', '2024-03-01T11:30:00+02:00'], // 09:30Z: before e1 though it sorts after it as text
      ['e3', '2024-03-01 10:30'], // a space and no offset: 10:30 UTC
      ['e4', '2024-02-29'],
    ];
    for (const [id, at] of rows) {
      expect((await t.req('POST', '/database/events', { body: { _id: id, at, when: at } })).status).toBe(201);
    }
    for (const path of ['at', 'when']) { // typed and schemaless
      expect(ids(await get(`events?filter[${path}][$gte]=2024-03-01T10:00:00Z&sort=_id`)), path).toEqual(['e1', 'e3']);
      expect(ids(await get(`events?filter[${path}][$lt]=2024-03-01T12:00:00%2B02:00&sort=_id`)), path).toEqual(['e2', 'e4']);
      expect(ids(await get(`events?filter[${path}][$gte]=2024-03-01&sort=_id`)), path).toEqual(['e1', 'e2', 'e3']);
    }
    // A value that is not a date still compares as text on a date field.
    expect(ids(await get('events?filter[at][$gte]=2024-03&sort=_id'))).toEqual(['e1', 'e2', 'e3']);
  });

  it('counts every match in meta.total, not only the page', async () => {
    const res = await get('many?filter[i][$gte]=10&limit=3&sort=-i');
    expect(res.body.meta).toEqual({ total: 110, limit: 3, offset: 0 });
    expect(ids(res)).toEqual(['r119', 'r118', 'r117']);
    expect((await get('many?filter[i][$lt]=60&limit=0')).body.meta.total).toBe(60);
  });

  it('coerces by the schema type when the collection has fields', async () => {
    expect(ids(await get('typed?filter[age]=25'))).toEqual(['p']);
    expect(ids(await get('typed?filter[age][$gt]=8&sort=age'))).toEqual(['p', 'q']);
    expect(ids(await get('typed?filter[age][$in]=7,30&sort=age'))).toEqual(['r', 'q']);
    expect(ids(await get('typed?filter[code]=25'))).toEqual(['p']);
    expect(ids(await get('typed?filter[code]=030'))).toEqual(['q']);
    expect(ids(await get('typed?filter[code]=true'))).toEqual(['r']);
    expect(ids(await get('typed?filter[ok]=true&sort=_id'))).toEqual(['p', 'r']);
    expect(ids(await get('typed?filter[ok]=false'))).toEqual(['q']);
    expect((await get('typed?filter[age]=abc')).status).toBe(400);
    expect((await get('typed?filter[ok]=maybe')).status).toBe(400);
    expect(ids(await get(`typed?filter[createdAt][$gte]=2000-01-01&sort=_id`))).toEqual(['p', 'q', 'r']);
  });

  it('uses an index for a filtered list and still gives the same answer', async () => {
    expect((await t.req('POST', '/database/many/indexes', { body: { fields: ['i'] } })).status).toBe(201);
    const res = await get('many?filter[i][$in]=3,5,200&sort=-i');
    expect(ids(res)).toEqual(['r005', 'r003']);
    expect(res.body.meta.total).toBe(2);
    expect((await get('many?sort=i&offset=100&limit=2')).body.data.map((r: { i: number }) => r.i)).toEqual([100, 101]);
  });
});

describe('on disk', () => {
  it('re-creates the schema indexes when a records store is opened after a restart', async () => {
    const data = tempDataDir();
    try {
      let s = await startTestServer({ data: data.dir });
      await s.req('POST', '/database', { body: { _id: 'keep', setting: { read: 'private', write: 'private', update: 'private' } } });
      await s.req('POST', '/database/keep/fields', { body: { _id: 'email', type: 'email', unique: true } });
      await s.req('POST', '/database/keep/indexes', { body: { _id: 'pair', fields: ['a', 'b'], unique: true } });
      const rec = await s.req('POST', '/database/keep', { body: { email: 'k@x.io', a: 1, b: 2 } });
      expect(rec.status).toBe(201);
      await s.close();

      s = await startTestServer({ data: data.dir });
      expect((await s.req('GET', `/database/keep/${rec.body._id}`)).body.email).toBe('k@x.io');
      expect((await s.req('POST', '/database/keep', { body: { email: 'k@x.io' } })).status).toBe(409);
      expect((await s.req('POST', '/database/keep', { body: { a: 1, b: 2 } })).status).toBe(409);
      expect((await s.req('POST', '/database/keep', { body: { a: 1, b: 3, email: 'l@x.io' } })).status).toBe(201);
      const store = await s.srv.ctx.registry.require('demo').records('keep');
      expect((await store.listIndexes()).map((i) => i.fieldName).sort()).toEqual(['_owner', 'a,b', 'createdAt', 'email']);
      expect((await s.req('GET', '/database/keep?filter[email]=l@x.io')).body.meta.total).toBe(1);
      await s.close();
    } finally {
      data.remove();
    }
  });
});
