// meta.total of record lists: exact after every kind of write (the PostgreSQL driver keeps the
// last count of each filter and forgets it when the collection is written to, by this process or
// another), and `skipTotal=true` for callers who do not need it (meta.total -1), on v1 and v2.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgEngineOf, startTestServer, TEST_DRIVER, type TestServer } from '../../test/harness.js';
import { useTwoServers } from '../../test/two-servers.js';
import { waitFor } from '../../test/receiver.js';

let t: TestServer;
const list = (q: string, server = t) => server.req('GET', `/database/people?${q}`);
const total = async (q: string, server = t) => {
  const r = await list(q, server);
  expect(r.status).toBe(200);
  return r.body.meta.total as number;
};

beforeAll(async () => {
  t = await startTestServer();
  await t.req('POST', '/database', { body: { _id: 'people', setting: { read: 'private', write: 'private', update: 'private' } } });
  await t.req('POST', '/database/people/indexes', { body: { fields: ['role'] } });
  for (let i = 0; i < 130; i++) {
    const r = await t.req('POST', '/database/people', { body: { _id: `p${String(i).padStart(3, '0')}`, role: i % 2 ? 'user' : 'admin', age: i } });
    expect(r.status).toBe(201);
  }
});
afterAll(async () => { await t.close(); });

describe('skipTotal', () => {
  it('true answers the same page with meta.total -1; false or absent counts; anything else is a 400', async () => {
    const counted = await list('filter[role]=admin&sort=-age&limit=10');
    const skipped = await list('filter[role]=admin&sort=-age&limit=10&skipTotal=true');
    expect(skipped.status).toBe(200);
    expect(skipped.body.data).toEqual(counted.body.data);
    expect(counted.body.meta).toEqual({ total: 65, limit: 10, offset: 0 });
    expect(skipped.body.meta).toEqual({ total: -1, limit: 10, offset: 0 });
    expect((await list('filter[role]=admin&limit=0&skipTotal=true')).body.meta.total).toBe(-1);
    expect(await total('filter[role]=admin&skipTotal=false')).toBe(65);
    const bad = await list('skipTotal=yes');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { field: 'skipTotal' } });
  });

  it('works on v2 lists too, whose pagination does not depend on the total', async () => {
    const r = await fetch(`${t.url.replace(/\/api$/, '')}/api/v2/app/demo/database/people?filter[role]=admin&limit=50&skipTotal=true`, { headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(r.status).toBe(200);
    const body = await r.json() as { data: unknown[]; meta: { total: number }; pagination: { hasMore: boolean; next: string | null } };
    expect(body.meta.total).toBe(-1);
    expect(body.data).toHaveLength(50);
    expect(body.pagination.hasMore).toBe(true);
    expect(body.pagination.next).toEqual(expect.any(String));
  });
});

describe('exact totals', () => {
  it('follow creates, updates that change what matches, deletes and deletes of many', async () => {
    const q = 'filter[role]=admin&sort=-age&limit=5';
    expect(await total(q)).toBe(65);
    expect(await total(q)).toBe(65); // asked again (the PostgreSQL driver answers its kept count)
    expect((await t.req('POST', '/database/people', { body: { _id: 'new1', role: 'admin', age: 1 } })).status).toBe(201);
    expect(await total(q)).toBe(66);
    expect((await t.req('PATCH', '/database/people/new1', { body: { role: 'user' } })).status).toBe(200);
    expect(await total(q)).toBe(65);
    expect((await t.req('PATCH', '/database/people/p001', { body: { role: 'admin' } })).status).toBe(200);
    expect(await total(q)).toBe(66);
    expect((await t.req('DELETE', '/database/people/p001')).status).toBe(204);
    expect(await total(q)).toBe(65);
    expect(await total('filter[role]=user&limit=0')).toBe(65);
    expect((await t.req('DELETE', '/database/people/new1')).status).toBe(204);
    expect(await total('filter[role]=user&limit=0')).toBe(64);
  });

  it('a short last page, a page past the end and limit=0 give the same total', async () => {
    expect(await total('filter[role]=admin&limit=100')).toBe(65);
    expect(await total('filter[role]=admin&limit=50&offset=50')).toBe(65);
    expect(await total('filter[role]=admin&limit=50&offset=500')).toBe(65);
    expect(await total('filter[role]=admin&limit=0')).toBe(65);
    expect(await total('filter[role]=nobody')).toBe(0);
  });

  it('an atomic batch counts once it is done: its undone writes never, its kept writes at once', async () => {
    const q = 'filter[role]=admin&limit=1';
    const before = await total(q);
    const op = (method: string, path: string, body?: unknown) => ({ method, path: `/app/demo${path}`, ...(body ? { body } : {}) });
    const batch = (operations: unknown[]) => fetch(`${t.url}/v2/batch`, {
      method: 'POST', headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ atomic: true, operations }),
    });
    // Listed inside the batch after its create (the batch sees its own write), then undone.
    const failed = await batch([op('POST', '/database/people', { _id: 'b1', role: 'admin' }), op('GET', '/database/people?filter[role]=admin&limit=1'),
      op('POST', '/database/people', { _id: 'b1', role: 'admin' })]);
    expect(failed.status).toBe(409);
    expect(await total(q)).toBe(before);
    const kept = await batch([op('POST', '/database/people', { _id: 'b2', role: 'admin' }), op('GET', '/database/people?filter[role]=admin&limit=1')]);
    expect(kept.status).toBe(200);
    const inside = (await kept.json() as { data: Array<{ body: { meta: { total: number } } }> }).data[1].body.meta.total;
    expect(inside).toBe(before + 1);
    expect(await total(q)).toBe(before + 1);
  });

  it.skipIf(TEST_DRIVER !== 'postgres')('on PostgreSQL the count of a filter is kept, and forgotten on a write', async () => {
    const db = pgEngineOf(t.srv)!.db;
    await total('filter[role]=admin&filter[age][$gte]=10&limit=2');
    expect(db.counts.kept).toBeGreaterThan(0);
    expect((await t.req('POST', '/database/people', { body: { role: 'guest' } })).status).toBe(201);
    const people = (await db.store('demo', 'collections/people')).table;
    expect(db.counts.get(people, 'anything')).toBeUndefined();
    expect(await total('filter[role]=admin&filter[age][$gte]=10&limit=2')).toBe(await total('filter[role]=admin&filter[age][$gte]=10&limit=0&skipTotal=false'));
  });
});

describe.skipIf(TEST_DRIVER !== 'postgres')('two processes on one database', () => {
  const pair = useTwoServers('totals');
  it('a total kept by one follows writes made through the other', async () => {
    const { a, b } = pair;
    expect((await a.req('POST', '/database', { body: { _id: 'people', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
    await waitFor(async () => (await b.req('GET', '/database/people')).status === 200, 5000, 'the collection on the second server');
    for (let i = 0; i < 60; i++) expect((await a.req('POST', '/database/people', { body: { _id: `x${i}`, role: i % 3 ? 'user' : 'admin' } })).status).toBe(201);
    const q = 'filter[role]=admin&limit=5';
    expect(await total(q, a)).toBe(20);
    expect(await total(q, a)).toBe(20);
    expect((await b.req('POST', '/database/people', { body: { _id: 'fromb', role: 'admin' } })).status).toBe(201);
    await waitFor(async () => (await total(q, a)) === 21, 5000, 'the first server\'s total after a create through the second');
    expect((await b.req('DELETE', '/database/people/x0')).status).toBe(204);
    expect((await b.req('DELETE', '/database/people/x3')).status).toBe(204);
    await waitFor(async () => (await total(q, a)) === 19, 5000, 'the first server\'s total after deletes through the second');
    expect(await total(q, b)).toBe(19);
  });
});
