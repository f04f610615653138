// The query planner against a reference: for random documents (missing fields, nulls, strings
// that look like numbers, arrays, nested paths) and random queries, a store with indexes on every
// field and a store with none must both answer exactly what "filter everything, sort everything,
// slice" answers, before and after random updates and removals.
import { describe, expect, it } from 'vitest';
import { DocStore } from './embedded/doc-store.js';
import { compileMatcher, comparator, project, parseIsoDate, selectTop, type Condition, type Doc, type SortKey, type StoreQuery } from './query.js';
import { FIELDS, makeDoc, prng, randomQuery, reference } from './query-cases.js';

async function stores(docs: Doc[]) {
  const plain = await DocStore.open();
  const indexed = await DocStore.open();
  for (const f of FIELDS) await indexed.ensureIndex({ fieldName: f });
  await plain.insertMany(docs.map((d) => ({ ...d })));
  await indexed.insertMany(docs.map((d) => ({ ...d })));
  return { plain, indexed };
}

function check(plain: DocStore, indexed: DocStore, rand: () => number, queries: number) {
  const docs = plain.all();
  for (let i = 0; i < queries; i++) {
    const q = randomQuery(rand);
    const want = reference(docs, q);
    const label = JSON.stringify(q);
    expect(plain.find(q), label).toEqual(want);
    expect(indexed.find(q), label).toEqual(want);
  }
}

async function mutate(s: { plain: DocStore; indexed: DocStore }, rand: () => number, n: number) {
  const ids = s.plain.all().map((d) => d._id);
  for (let i = 0; i < n; i++) {
    const id = ids[Math.floor(rand() * ids.length)];
    const current = s.plain.get(id);
    if (!current) continue;
    if (rand() < 0.3) {
      await s.plain.remove(id);
      await s.indexed.remove(id);
    } else {
      const next = { ...makeDoc(rand, i, true), _id: id, createdAt: current.createdAt };
      await s.plain.replace(id, next);
      await s.indexed.replace(id, next);
    }
  }
}

describe('query planner: index scans answer what full scans answer', () => {
  it('small sets (under the scan threshold), with arrays', async () => {
    const rand = prng(1);
    const s = await stores(Array.from({ length: 300 }, (_, i) => makeDoc(rand, i, true)));
    check(s.plain, s.indexed, rand, 400);
    await mutate(s, rand, 150);
    check(s.plain, s.indexed, rand, 300);
  });

  it('large sets (ordered index walks), scalar fields only', async () => {
    const rand = prng(2);
    const s = await stores(Array.from({ length: 3000 }, (_, i) => makeDoc(rand, i, false)));
    check(s.plain, s.indexed, rand, 400);
    await mutate(s, rand, 400);
    check(s.plain, s.indexed, rand, 300);
  });

  it('large sets where some documents hold arrays (the walk must step aside)', async () => {
    const rand = prng(3);
    const s = await stores(Array.from({ length: 2000 }, (_, i) => makeDoc(rand, i, true)));
    check(s.plain, s.indexed, rand, 300);
    await mutate(s, rand, 300);
    check(s.plain, s.indexed, rand, 200);
  });

  it('the benchmark query: an equality bucket walked along a sort index', async () => {
    const rand = prng(4);
    const s = await stores(Array.from({ length: 5000 }, (_, i) => makeDoc(rand, i, false)));
    for (const offset of [0, 10, 60]) {
      const q: StoreQuery = { conditions: [{ path: 'role', op: '$eq', values: ['admin'] }], sort: [{ path: 'age', dir: -1 }], limit: 50, offset };
      const want = reference(s.plain.all(), q);
      expect(want.data.length).toBeGreaterThan(0);
      expect(s.indexed.find(q)).toEqual(want);
    }
    // after updates that move documents between buckets (nedb's bucket delete is patched)
    await mutate(s, rand, 500);
    const q: StoreQuery = { conditions: [{ path: 'role', op: '$eq', values: ['admin'] }], sort: [{ path: 'age', dir: -1 }, { path: 'score', dir: 1 }], limit: 50, offset: 0 };
    expect(s.indexed.find(q)).toEqual(reference(s.plain.all(), q));
  });

  it('counts without a page (limit 0) and findBy through an index', async () => {
    const rand = prng(5);
    const s = await stores(Array.from({ length: 1500 }, (_, i) => makeDoc(rand, i, true)));
    const q: StoreQuery = { conditions: [{ path: 'tags', op: '$eq', values: ['red'] }], sort: [], limit: 0, offset: 0 };
    const want = reference(s.plain.all(), q);
    expect(want.total).toBeGreaterThan(0);
    expect(s.indexed.find(q)).toEqual(want);
    const byRole = (st: DocStore) => st.findBy('role', 'admin').map((d) => d._id).sort();
    expect(byRole(s.indexed)).toEqual(byRole(s.plain));
  });
});

describe('selectTop: the top k of the matches, without sorting them', () => {
  // Values of every kind nedb orders (undefined < null < numbers < strings < booleans < dates <
  // arrays < objects), drawn from small sets so that ties are common.
  const VALUES: unknown[] = [undefined, null, -1, 0, -0, 1, 1.5, 30, 30, 1e9, '', '1', '30', 'a', 'B', 'b', true, false,
    new Date(0), new Date(1000), [], [1], [1, 2], ['a'], {}, { a: 1 }, { a: 2, b: 1 }];
  const PATHS = ['v', 'w', 'n.x', 'list.k', 'valueOf', 'absent'];

  function doc(rand: () => number, i: number): Doc {
    const pick = () => VALUES[Math.floor(rand() * VALUES.length)];
    const d: Doc = { _id: `r${Math.floor(rand() * 1e9).toString(36)}${i}` };
    const v = pick(); if (v !== undefined) d.v = v;
    const w = pick(); if (w !== undefined) d.w = w;
    if (rand() < 0.7) d.n = rand() < 0.8 ? { x: pick() } : pick();
    if (rand() < 0.4) d.list = [{ k: pick() }, { k: pick() }];
    if (rand() < 0.3) Object.defineProperty(d, 'valueOf', { value: pick(), enumerable: true, writable: true, configurable: true });
    return d;
  }

  it('orders ties, mixed types and missing values exactly as the full sort does', () => {
    const rand = prng(18);
    for (let round = 0; round < 300; round++) {
      const n = [0, 1, 5, 60, 400, 2500][Math.floor(rand() * 6)];
      const pool = Array.from({ length: n }, (_, i) => doc(rand, i));
      const sort: SortKey[] = Array.from({ length: 1 + Math.floor(rand() * 3) },
        () => ({ path: PATHS[Math.floor(rand() * PATHS.length)], dir: (rand() < 0.5 ? 1 : -1) as 1 | -1 }));
      const k = [0, 1, 3, 50, 120, 999, 1001, 5000][Math.floor(rand() * 8)];
      const cond: Condition | undefined = rand() < 0.5 ? { path: 'w', op: '$ne', values: [VALUES[Math.floor(rand() * VALUES.length)]] } : undefined;
      const match = cond ? compileMatcher([cond]) : null;
      const matched = match ? pool.filter(match) : pool.slice();
      const want = matched.sort(comparator(sort)).slice(0, k).map((d) => d._id);
      const got = selectTop(pool, match, sort, k);
      const label = JSON.stringify({ round, n, sort, k, cond });
      expect(got.page.map((d) => d._id), label).toEqual(want);
      expect(got.total, label).toBe(matched.length);
    }
  });

  it('answers the unindexed benchmark list (equality bucket, sort on another field) as the full sort does', async () => {
    const rand = prng(19);
    const docs = Array.from({ length: 6000 }, (_, i) => makeDoc(rand, i, false));
    const plain = await DocStore.open();
    const roleOnly = await DocStore.open();
    await roleOnly.ensureIndex({ fieldName: 'role' });
    await plain.insertMany(docs.map((d) => ({ ...d })));
    await roleOnly.insertMany(docs.map((d) => ({ ...d })));
    for (const sort of [[{ path: 'age', dir: -1 }], [{ path: 'age', dir: 1 }, { path: 'score', dir: -1 }], [{ path: 'mixed', dir: -1 }]] as SortKey[][]) {
      for (const offset of [0, 7, 50]) {
        const q: StoreQuery = { conditions: [{ path: 'role', op: '$eq', values: ['admin'] }], sort, limit: 50, offset };
        const want = reference(plain.all(), q);
        expect(want.data).toHaveLength(50);
        expect(roleOnly.find(q)).toEqual(want);
        expect(plain.find(q)).toEqual(want);
      }
    }
  });
});

describe('range comparisons', () => {
  const matches = (c: Condition, values: unknown[]) => values.filter((v) => compileMatcher([c])({ _id: 'x', v } as Doc));

  it('compares a number with numbers and with strings that read as numbers, never as text', () => {
    const values = [25, '25', '100', 100, '0150', 'abc', '', ' ', null, true, [5, '200']];
    expect(matches({ path: 'v', op: '$gte', values: [100] }, values)).toEqual(['100', 100, '0150', [5, '200']]);
    expect(matches({ path: 'v', op: '$lt', values: [100] }, values)).toEqual([25, '25', [5, '200']]);
    // A string value still compares with strings (typed string fields).
    expect(matches({ path: 'v', op: '$gte', values: ['3'] }, ['25', '4', 25])).toEqual(['4']);
  });

  it('compares kind: date as instants, skipping values that are not dates', () => {
    const at = parseIsoDate('2024-03-01T10:00:00Z')!;
    const values = ['2024-03-01T10:00:00Z', '2024-03-01T11:30:00+02:00', '2024-03-01 10:30', '2024-02-29', 'later', 20240301, null];
    expect(matches({ path: 'v', op: '$gte', values: [at], kind: 'date' }, values)).toEqual(['2024-03-01T10:00:00Z', '2024-03-01 10:30']);
    expect(matches({ path: 'v', op: '$lt', values: [at], kind: 'date' }, values)).toEqual(['2024-03-01T11:30:00+02:00', '2024-02-29']);
  });

  it('parseIsoDate reads the forms of a date field and refuses dates that do not exist', () => {
    expect(parseIsoDate('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(parseIsoDate('2024-02-29T23:59:59.1234Z')).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 123));
    expect(parseIsoDate('2024-03-01T01:30+0200')).toBe(Date.UTC(2024, 1, 29, 23, 30));
    expect(parseIsoDate('2024-03-01 01:30')).toBe(Date.UTC(2024, 2, 1, 1, 30));
    expect(parseIsoDate('0099-01-01')).toBe(new Date('0099-01-01T00:00:00Z').getTime());
    for (const bad of ['2024-02-30', '1900-02-29', '2024-06-31', '2024-01-01T24:00', '2024-01-01T10:60', '2024-01-01T10:00:61', '2024-01-01T10:00+24:00',
      '2024-01-01Z', '24-01-01', '2024-01-01T', 'x2024-01-01', '']) {
      expect(parseIsoDate(bad), bad).toBeUndefined();
    }
  });
});

describe('projection', () => {
  const doc = { _id: 'd', name: 'n', items: [{ name: 'a', qty: 1 }, { name: 'b', qty: 2, deep: [{ x: 1, y: 2 }] }, 7, { qty: 3 }], p: { q: { r: 1, s: 2 } } } as Doc;

  it('keeps arrays of objects as arrays', () => {
    expect(project(doc, ['items.name'])).toEqual({ _id: 'd', items: [{ name: 'a' }, { name: 'b' }, {}] });
    expect(project(doc, ['items.deep.x'])).toEqual({ _id: 'd', items: [{}, { deep: [{ x: 1 }] }, {}] });
    expect(project(doc, ['items.0.qty', 'items.1.name'])).toEqual({ _id: 'd', items: [{ qty: 1 }, { name: 'b' }] });
    expect(project(doc, ['items.name', 'items.1.qty'])).toEqual({ _id: 'd', items: [{ name: 'a' }, { name: 'b', qty: 2 }, {}] });
    expect(project(doc, ['items.2'])).toEqual({ _id: 'd', items: [7] });
  });

  it('nests objects, omits what is missing, and lets a whole value win', () => {
    expect(project(doc, ['p.q.r', 'name', 'missing', 'name.x'])).toEqual({ _id: 'd', name: 'n', p: { q: { r: 1 } } });
    expect(project(doc, ['p.q.r', 'p'])).toEqual({ _id: 'd', p: doc.p });
    expect(project(doc, ['p', 'p.q.r'])).toEqual({ _id: 'd', p: doc.p });
    expect(project(doc, ['p.zz'])).toEqual({ _id: 'd' });
  });

  it('reads own properties only', () => {
    const bare = { _id: 'e' } as Doc;
    expect(project(bare, ['constructor', 'toString.x', 'items.constructor'])).toEqual({ _id: 'e' });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
