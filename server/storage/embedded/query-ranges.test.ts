// Numeric range conditions on an indexed field read the index's range (its size from the keys'
// buckets, a sort on the same field walked from the range's end) instead of every document:
// the answers must be exactly those of a plain filter-sort-slice, whatever else the field holds
// (numeric strings, which a numeric range also matches, null, missing values, arrays, booleans),
// with equality conditions, other ranges and sorts beside them, and after writes.
import { describe, expect, it } from 'vitest';
import { DocStore } from './doc-store.js';
import { prng, reference } from '../query-cases.js';
import type { Condition, Doc, FilterOp, StoreQuery } from '../query.js';

const ROLES = ['admin', 'editor', 'user', 'guest'];

type Odd = false | 'others' | 'strings';

function person(rand: () => number, i: number, odd: Odd): Doc {
  const d: Doc = { _id: `p${String(i).padStart(6, '0')}`, createdAt: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(), role: ROLES[Math.floor(rand() * 4)], age: 18 + Math.floor(rand() * 63), score: Math.round(rand() * 10_000) / 100, name: `n${Math.floor(rand() * 5000)}` };
  if (odd) {
    const x = rand();
    if (x < 0.03) d.age = odd === 'strings' ? String(18 + Math.floor(rand() * 63)) : 18.5; // a numeric string: matched by numeric ranges
    else if (x < 0.06) d.age = null;
    else if (x < 0.09) delete d.age;
    else if (x < 0.1) d.age = true;
  }
  return d;
}

async function store(odd: Odd, n = 4000) {
  const rand = prng(odd ? 5 : 3);
  const s = await DocStore.open({ memoFrom: 0 });
  await s.ensureIndex({ fieldName: 'role' });
  await s.ensureIndex({ fieldName: 'age' });
  await s.ensureIndex({ fieldName: 'score' });
  await s.insertMany(Array.from({ length: n }, (_, i) => person(rand, i, odd)));
  return { s, rand };
}

function randomRangeQuery(rand: () => number): StoreQuery {
  const conditions: Condition[] = [];
  const ops: FilterOp[] = ['$gt', '$gte', '$lt', '$lte'];
  const field = rand() < 0.7 ? 'age' : 'score';
  const value = () => (field === 'age' ? 10 + Math.floor(rand() * 80) : Math.round(rand() * 12_000) / 100);
  conditions.push({ path: field, op: ops[Math.floor(rand() * 4)], values: [value()] });
  if (rand() < 0.4) conditions.push({ path: field, op: ops[Math.floor(rand() * 4)], values: [value()] });
  if (rand() < 0.4) conditions.push({ path: 'role', op: '$eq', values: [ROLES[Math.floor(rand() * 4)]] });
  if (rand() < 0.2) conditions.push({ path: field === 'age' ? 'score' : 'age', op: '$gte', values: [40] });
  const sorts = [[], [{ path: 'age', dir: 1 }], [{ path: 'age', dir: -1 }], [{ path: 'name', dir: 1 }], [{ path: 'score', dir: -1 }], [{ path: 'age', dir: 1 }, { path: 'name', dir: -1 }]] as StoreQuery['sort'][];
  return { conditions, sort: sorts[Math.floor(rand() * sorts.length)], limit: [0, 1, 20, 50, 100][Math.floor(rand() * 5)], offset: [0, 0, 7, 600][Math.floor(rand() * 4)] };
}

describe('numeric ranges read through an index', () => {
  for (const odd of [false, 'others', 'strings'] as const) {
    const what = { false: 'a field of numbers only', others: 'a field that also holds null, booleans and gaps', strings: 'a field that also holds numeric strings (the matcher decides)' }[String(odd)];
    it(`${what}: 300 random range queries answer as the full sort does`, async () => {
      const { s, rand } = await store(odd);
      for (let i = 0; i < 300; i++) {
        const q = randomRangeQuery(rand);
        expect(s.find(q), JSON.stringify(q)).toEqual(reference(s.all(), q));
      }
    });
  }

  it('stays exact across writes that move documents in and out of a range', async () => {
    const { s, rand } = await store(false, 3000);
    const q: StoreQuery = { conditions: [{ path: 'age', op: '$gte', values: [60] }, { path: 'age', op: '$lt', values: [70] }], sort: [{ path: 'age', dir: -1 }], limit: 50, offset: 0 };
    for (let i = 0; i < 40; i++) {
      const ids = s.all().map((d) => d._id);
      const id = ids[Math.floor(rand() * ids.length)];
      if (i % 3 === 0) await s.insert(person(rand, 100_000 + i, false));
      else if (i % 3 === 1) await s.replace(id, { ...s.get(id)!, age: 55 + Math.floor(rand() * 20) });
      else await s.remove(id);
      expect(s.find(q)).toEqual(reference(s.all(), q));
      expect(s.find({ ...q, limit: 0 }).total).toBe(reference(s.all(), q).total);
    }
  });

  it('a document with an array on the field, then a numeric string, turn the index range off and on again', async () => {
    const { s } = await store(false, 2000);
    const q: StoreQuery = { conditions: [{ path: 'age', op: '$gte', values: [79] }], sort: [{ path: 'name', dir: 1 }], limit: 100, offset: 0 };
    await s.insert({ _id: 'arr', createdAt: '2030-01-01T00:00:00.000Z', age: [10, 90], name: 'arr' });
    expect(s.find(q)).toEqual(reference(s.all(), q));
    expect(s.find(q).data.some((d) => d._id === 'arr')).toBe(true);
    await s.remove('arr');
    await s.insert({ _id: 'str', createdAt: '2030-01-01T00:00:00.000Z', age: '85', name: 'str' });
    expect(s.find(q)).toEqual(reference(s.all(), q));
    expect(s.find(q).data.some((d) => d._id === 'str')).toBe(true);
    await s.remove('str');
    expect(s.find(q)).toEqual(reference(s.all(), q));
  });
});
