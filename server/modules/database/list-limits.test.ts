// How big one list request may be: each bound of the list language, at the bound (answered)
// and one past it (400 BAD_REQUEST naming the limit in `details`), over HTTP, as an anonymous
// caller on a public collection where that matters; the same bounds on another list (users)
// and on saved views; and the request that froze the server (thousands of sort keys) refused
// while the server goes on answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { LIST_LIMITS } from '../../core/list-limits.js';

let t: TestServer;
const anon = (q: string) => t.req('GET', `/database/open?${q}`, { token: null });
const many = (n: number, f: (i: number) => string, sep = ',') => Array.from({ length: n }, (_, i) => f(i)).join(sep);

beforeAll(async () => {
  t = await startTestServer();
  await t.req('POST', '/database', { body: { _id: 'open', setting: { read: 'public', write: 'private', update: 'private' } } });
  for (let i = 0; i < 30; i++) await t.req('POST', '/database/open', { body: { _id: `r${String(i).padStart(2, '0')}`, n: i, name: `n${i}`, deep: { a: { b: i } } } });
});
afterAll(async () => { await t.close(); });

function expectLimit(res: { status: number; body: any }, limit: string, field: string, given: number) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('BAD_REQUEST');
  expect(res.body.error.details).toEqual({ field, limit, max: LIST_LIMITS[limit as keyof typeof LIST_LIMITS], given });
  expect(res.body.error.message).toContain(String(LIST_LIMITS[limit as keyof typeof LIST_LIMITS]));
}

describe('the list language is bounded', () => {
  it('sort keys: at the limit answered in order, one more refused', async () => {
    const max = LIST_LIMITS.sortKeys;
    const ok = await anon(`sort=${many(max - 1, (i) => `x${i}`)},-n&limit=3`);
    expect(ok.status).toBe(200);
    expect(ok.body.data.map((r: { _id: string }) => r._id)).toEqual(['r29', 'r28', 'r27']);
    expectLimit(await anon(`sort=${many(max + 1, (i) => `x${i}`)}`), 'sortKeys', 'sort', max + 1);
  });

  it('$in and $nin values: at the limit answered, one more refused', async () => {
    const max = LIST_LIMITS.inValues;
    const ok = await anon(`filter[n][$in]=${many(max, (i) => String(i + 25))}&limit=0`);
    expect(ok.status).toBe(200);
    expect(ok.body.meta.total).toBe(5);
    const nin = await anon(`filter[name][$nin]=${many(max, (i) => `n${i + 2}`)}&limit=0`);
    expect(nin.body.meta.total).toBe(2);
    expectLimit(await anon(`filter[n][$in]=${many(max + 1, String)}`), 'inValues', 'n', max + 1);
    expectLimit(await anon(`filter[name][$nin]=${many(max + 1, String)}`), 'inValues', 'name', max + 1);
  });

  it('filter parameters: at the limit answered, one more refused', async () => {
    const max = LIST_LIMITS.filters;
    const ok = await anon(`${many(max - 1, (i) => `filter[f${i}][$exists]=false`, '&')}&filter[n][$gte]=28&limit=0`);
    expect(ok.status).toBe(200);
    expect(ok.body.meta.total).toBe(2);
    expectLimit(await anon(many(max + 1, (i) => `filter[f${i}][$exists]=false`, '&')), 'filters', 'filter', max + 1);
  });

  it('fields= entries: at the limit answered, one more refused', async () => {
    const max = LIST_LIMITS.fields;
    const ok = await anon(`fields=${many(max - 1, (i) => `f${i}`)},n&limit=1`);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual([{ _id: 'r00', n: 0 }]);
    expectLimit(await anon(`fields=${many(max + 1, (i) => `f${i}`)}`), 'fields', 'fields', max + 1);
  });

  it('field paths: their length and their depth are bounded, in filters, sorts and fields', async () => {
    const long = `a${'b'.repeat(LIST_LIMITS.pathLength - 1)}`;
    expect((await anon(`filter[${long}][$exists]=false&limit=0`)).body.meta.total).toBe(30);
    expectLimit(await anon(`filter[${long}b][$exists]=false`), 'pathLength', 'filter', LIST_LIMITS.pathLength + 1);
    expectLimit(await anon(`sort=${long}b`), 'pathLength', 'sort', LIST_LIMITS.pathLength + 1);
    const deep = many(LIST_LIMITS.pathDepth, () => 'a', '.');
    expect((await anon(`fields=${deep}&limit=1`)).status).toBe(200);
    expectLimit(await anon(`fields=${deep}.a`), 'pathDepth', 'fields', LIST_LIMITS.pathDepth + 1);
    expectLimit(await anon(`sort=-${deep}.a`), 'pathDepth', 'sort', LIST_LIMITS.pathDepth + 1);
    expect((await anon('filter[deep.a.b][$gte]=28&limit=0')).body.meta.total).toBe(2);
  });

  it('filter values: their length is bounded, each $in value on its own', async () => {
    const max = LIST_LIMITS.valueLength;
    expect((await anon(`filter[name][$contains]=${'z'.repeat(max)}&limit=0`)).body.meta.total).toBe(0);
    expectLimit(await anon(`filter[name][$contains]=${'z'.repeat(max + 1)}`), 'valueLength', 'name', max + 1);
    expectLimit(await anon(`filter[name]=${'z'.repeat(max + 1)}`), 'valueLength', 'name', max + 1);
    expectLimit(await anon(`filter[name][$in]=n1,${'z'.repeat(max + 1)}`), 'valueLength', 'name', max + 1);
    expect((await anon(`filter[name][$in]=n1,${'z'.repeat(max)}&limit=0`)).body.meta.total).toBe(1);
  });

  it('refuses the request that froze the server (thousands of sort keys) and keeps answering', async () => {
    const res = await anon(`sort=${many(2000, (i) => `k${i}`)}&limit=50`);
    expectLimit(res, 'sortKeys', 'sort', 2000);
    expect((await t.req('GET', '/database/open?limit=1', { token: null })).status).toBe(200);
    const health = await fetch(`${t.url}/health`);
    expect(health.status).toBe(200);
  });

  it('other lists parse with the same bounds (users)', async () => {
    expectLimit(await t.req('GET', `/users?sort=${many(LIST_LIMITS.sortKeys + 1, (i) => `x${i}`)}`), 'sortKeys', 'sort', LIST_LIMITS.sortKeys + 1);
    expect((await t.req('GET', `/users?sort=${many(LIST_LIMITS.sortKeys, (i) => `x${i}`)}`)).status).toBe(200);
  });

  it('a saved view is held to the same bounds: refused when saved, so it can never be listed', async () => {
    const filter = Object.fromEntries(Array.from({ length: LIST_LIMITS.filters + 1 }, (_, i) => [`f${i}`, { $exists: false }]));
    const res = await t.req('POST', '/database/open/views', { body: { _id: 'wide', name: 'wide', filter } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(JSON.stringify(res.body.error)).toContain('filter');
    expect((await t.req('GET', '/database/open/views/wide')).status).toBe(404);
    const sorted = await t.req('POST', '/database/open/views', { body: { _id: 'sorted', name: 'sorted', sort: many(LIST_LIMITS.sortKeys + 1, (i) => `x${i}`) } });
    expect(sorted.status).toBeGreaterThanOrEqual(400);
    expect(sorted.status).toBeLessThan(500);
  });
});
