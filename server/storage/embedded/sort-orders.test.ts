// Sort orders of unindexed fields (sort-orders.ts) against the reference ("filter everything,
// sort everything, slice"): random documents (missing values, nulls, mixed types, arrays, ties)
// and random queries, answered from orders built in the background, then after writes applied
// one by one, in bulk, and while a build runs; a list that pauses keeps the order it started
// with; at most ORDERS_MAX orders are kept.
import { describe, expect, it } from 'vitest';
import { DocStore } from './doc-store.js';
import { runSteps, type Doc, type StoreQuery } from '../query.js';
import { FIELDS, makeDoc, prng, randomQuery, reference } from '../query-cases.js';
import { ORDERS_MAX } from './sort-orders.js';

/** A store keeping sort orders whatever its size. */
async function store(docs: Doc[]): Promise<DocStore> {
  const s = await DocStore.open({ sortOrdersFrom: 0 });
  await s.insertMany(docs.map((d) => ({ ...d })));
  return s;
}

const turn = () => new Promise((r) => setImmediate(r));

/** Waits for every order to be built (builds run a slice per event-loop turn). */
async function built(s: DocStore): Promise<void> {
  for (let i = 0; i < 10_000 && s.sortOrders.some((o) => !o.ready); i++) await turn();
  expect(s.sortOrders.every((o) => o.ready)).toBe(true);
}

const ORDERED = ['role', 'age', 'score', 'mixed'];

/** Random queries sorted first on an unindexed field (orders are made for those). */
function sortedQueries(rand: () => number, n: number): StoreQuery[] {
  const out: StoreQuery[] = [];
  while (out.length < n) {
    const q = randomQuery(rand);
    // First on one of ORDERS_MAX fields (so that the orders stay), then maybe on others.
    q.sort = [{ path: ORDERED[Math.floor(rand() * ORDERED.length)], dir: rand() < 0.5 ? 1 : -1 }, ...q.sort.slice(1)];
    if (rand() < 0.15) q.offset = Math.floor(rand() * 1500); // deep pages
    out.push(q);
  }
  return out;
}

function check(s: DocStore, queries: StoreQuery[]): void {
  const docs = s.all();
  for (const q of queries) expect(s.find(q), JSON.stringify(q)).toEqual(reference(docs, q));
}

async function mutate(s: DocStore, rand: () => number, n: number, from: number): Promise<void> {
  const ids = s.all().map((d) => d._id as string);
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const id = ids[Math.floor(rand() * ids.length)];
    const x = rand();
    if (x < 0.2) writes.push(s.remove(id));
    else if (x < 0.4) writes.push(s.insert(makeDoc(rand, from + i, true)));
    else writes.push(s.update(id, (current) => ({ ...makeDoc(rand, from + i, true), _id: id, createdAt: current.createdAt })));
  }
  await Promise.all(writes);
}

describe('sort orders answer what the full sort answers', () => {
  it('built in the background, then after a few writes, a batch, and many', async () => {
    const rand = prng(31);
    const s = await store(Array.from({ length: 2500 }, (_, i) => makeDoc(rand, i, true)));
    const queries = sortedQueries(rand, 150);
    check(s, queries); // answered by passes; the orders are being made
    expect(s.sortOrders.length).toBeGreaterThan(0);
    await built(s);
    check(s, queries);
    await mutate(s, rand, 20, 10_000);
    check(s, queries);
    await mutate(s, rand, 400, 20_000);
    check(s, queries);
    await mutate(s, rand, 1500, 30_000);
    check(s, sortedQueries(rand, 100));
    await built(s);
    check(s, queries);
  });

  it('blocks that fill up split, blocks emptied go, ties across blocks keep their order', async () => {
    const s = await store(Array.from({ length: 3000 }, (_, i) => ({ _id: `k${String(i).padStart(5, '0')}`, createdAt: new Date(i * 1000).toISOString(), seq: i, mod: i % 7 })));
    const queries: StoreQuery[] = [];
    for (const dir of [1, -1] as const) {
      for (const offset of [0, 40, 1400, 2450, 4000]) {
        queries.push({ conditions: [], sort: [{ path: 'seq', dir }], limit: 50, offset });
        queries.push({ conditions: [{ path: 'mod', op: '$lt', values: [3] }], sort: [{ path: 'seq', dir }, { path: 'mod', dir: -1 }], limit: 30, offset });
      }
    }
    s.find(queries[0]);
    await built(s);
    check(s, queries);
    // 2,500 documents with one value in the middle: one block takes them all, and splits.
    await Promise.all(Array.from({ length: 2500 }, (_, i) => s.insert({ _id: `t${String(i).padStart(5, '0')}`, createdAt: new Date(0).toISOString(), seq: 1500.5, mod: i % 5 })));
    check(s, queries);
    // The first 1,500 gone: their blocks empty.
    await Promise.all(Array.from({ length: 1500 }, (_, i) => s.remove(`k${String(i).padStart(5, '0')}`)));
    check(s, queries);
    expect(s.sortOrders).toEqual([{ path: 'seq', ready: true }]);
  });

  it('writes made while an order is being built are in it', async () => {
    const rand = prng(32);
    const s = await store(Array.from({ length: 4000 }, (_, i) => makeDoc(rand, i, false)));
    const q: StoreQuery = { conditions: [], sort: [{ path: 'score', dir: -1 }], limit: 50, offset: 0 };
    s.find(q);
    expect(s.sortOrders).toEqual([{ path: 'score', ready: false }]);
    for (let i = 0; s.sortOrders[0].ready === false; i++) {
      await mutate(s, rand, 5, 100_000 + i * 5);
      await turn();
    }
    check(s, [q, { ...q, offset: 1000 }, { ...q, sort: [{ path: 'score', dir: 1 }, { path: 'role', dir: -1 }], offset: 3900 }]);
  });

  it('a list that pauses reads the order as it was when it started, whatever is written meanwhile', async () => {
    const rand = prng(33);
    const s = await store(Array.from({ length: 3000 }, (_, i) => makeDoc(rand, i, false)));
    const q: StoreQuery = { conditions: [], sort: [{ path: 'mixed', dir: 1 }, { path: 'score', dir: -1 }], limit: 50, offset: 2900 };
    s.find(q);
    await built(s);
    const before = reference(s.all(), q);
    const steps = s.querySteps(q);
    expect(steps.next().done).toBe(false); // paused within the walk
    // Remove the whole page and add documents that sort first.
    await Promise.all(before.data.map((d) => s.remove(d._id as string)));
    await Promise.all(Array.from({ length: 30 }, (_, i) => s.insert({ _id: `new${i}`, createdAt: new Date(0).toISOString(), mixed: null })));
    expect(runSteps(steps)).toEqual(before);
    check(s, [q]); // and a list asked now sees the writes
  });

  it('an update keeping the sort value takes the old version\'s place; a list paused before reads the old versions', async () => {
    const rand = prng(35);
    const s = await store(Array.from({ length: 3000 }, (_, i) => makeDoc(rand, i, false)));
    const q: StoreQuery = { conditions: [], sort: [{ path: 'role', dir: 1 }], limit: 50, offset: 2900 };
    s.find(q);
    await built(s);
    const before = reference(s.all(), q);
    const steps = s.querySteps(q);
    expect(steps.next().done).toBe(false); // paused within the walk
    // New versions of the page's documents, the same role (and of some others, a new one).
    await Promise.all(before.data.map((d) => s.update(d._id as string, (current) => ({ ...current, note: 'new version' }))));
    await Promise.all(s.all().slice(0, 40).map((d) => s.update(d._id as string, (current) => ({ ...current, role: `moved ${current.role}` }))));
    expect(runSteps(steps)).toEqual(before);
    const after = s.find(q);
    expect(after).toEqual(reference(s.all(), q));
    check(s, [{ ...q, offset: 0 }, { ...q, sort: [{ path: 'role', dir: -1 }], offset: 10 }]);
    expect(before.data.map((d) => s.get(d._id as string)?.note)).toEqual(before.data.map(() => 'new version'));
  });

  it(`keeps at most ${ORDERS_MAX} orders per store, dropping the one used least recently`, async () => {
    const rand = prng(34);
    const s = await store(Array.from({ length: 500 }, (_, i) => makeDoc(rand, i, true)));
    const fields = ['role', 'age', 'score', 'active', 'mixed', 'nested.x'];
    for (const path of fields) { s.find({ conditions: [], sort: [{ path, dir: 1 }], limit: 10, offset: 0 }); await built(s); }
    expect(s.sortOrders.map((o) => o.path).sort()).toEqual(fields.slice(-ORDERS_MAX).sort());
    check(s, fields.map((path) => ({ conditions: [], sort: [{ path, dir: -1 as const }], limit: 10, offset: 3 })));
  });
});
