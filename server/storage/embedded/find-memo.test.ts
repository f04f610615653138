// DocStore.find remembers answers on big stores until the next change: every answer must still
// be what the query finds now, after inserts, replacements, removals, a replaceAll, and when the
// same query is asked while a write is under way.
import { describe, expect, it } from 'vitest';
import { DocStore } from './doc-store.js';
import { makeDoc, prng, randomQuery, reference } from '../query-cases.js';
import type { StoreQuery } from '../query.js';

const QUERY: StoreQuery = { conditions: [{ path: 'role', op: '$eq', values: ['admin'] }], sort: [{ path: 'age', dir: -1 }], limit: 20, offset: 0 };

async function store() {
  const rand = prng(31);
  const s = await DocStore.open({ memoFrom: 0 });
  await s.ensureIndex({ fieldName: 'role' });
  await s.insertMany(Array.from({ length: 800 }, (_, i) => makeDoc(rand, i, true)));
  return { s, rand };
}

describe('remembered list answers', () => {
  it('are never stale after a write of any kind', async () => {
    const { s, rand } = await store();
    const queries = Array.from({ length: 40 }, () => randomQuery(rand)).concat([QUERY]);
    const same = () => { for (const q of queries) expect(s.find(q), JSON.stringify(q)).toEqual(reference(s.all(), q)); };
    same();
    same(); // from the memo
    for (let i = 0; i < 30; i++) {
      const ids = s.all().map((d) => d._id);
      const id = ids[Math.floor(rand() * ids.length)];
      const kind = i % 3;
      if (kind === 0) await s.insert({ ...makeDoc(rand, 10_000 + i, true), role: 'admin', age: 99 });
      else if (kind === 1) await s.replace(id, { ...makeDoc(rand, 20_000 + i, true), _id: id, role: 'admin', age: 100 + i });
      else await s.remove(s.find(QUERY).data[0]._id);
      same();
    }
    await s.replaceAll(s.all().slice(0, 100));
    same();
  });

  it('taken while a write is under way are not reused after it', async () => {
    const { s, rand } = await store();
    s.find(QUERY);
    const writing = s.insert({ ...makeDoc(rand, 30_000, false), role: 'admin', age: 1000 });
    const during = s.find(QUERY);
    await writing;
    const after = s.find(QUERY);
    expect(after).toEqual(reference(s.all(), QUERY));
    expect(after.data[0].age).toBe(1000);
    expect(during.total + (during.data.some((d) => d.age === 1000) ? 0 : 1)).toBe(after.total);
  });

  it('hand each caller its own array', async () => {
    const { s } = await store();
    const first = s.find(QUERY);
    first.data.length = 0;
    expect(s.find(QUERY).data).toHaveLength(20);
  });
});
