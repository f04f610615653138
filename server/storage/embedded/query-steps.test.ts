// A list query is worked out in steps that give the event loop a turn (planner.ts: querySteps,
// runSliced): the costly shapes (a deep page sorted on an unindexed field, a deep page of an
// index walk, long $in / $nin lists, counts) are divided into many steps and give exactly the
// answer of a plain filter-sort-slice; an index walk paused while writes reshape its tree
// resumes where it was, and findSliced's answer through the store interface is the same.
import { describe, expect, it } from 'vitest';
import { DocStore } from './doc-store.js';
import { embeddedStore } from './embedded-store.js';
import { makeDoc, prng, reference } from '../query-cases.js';
import { comparator, runSliced, type Doc, type StoreQuery } from '../query.js';

const N = 6000;

async function store() {
  const rand = prng(7);
  const s = await DocStore.open({ memoFrom: 0 });
  await s.ensureIndex({ fieldName: 'score' });
  await s.insertMany(Array.from({ length: N }, (_, i) => makeDoc(rand, i, false)));
  return { s, rand };
}

function drive<T>(steps: Generator<void, T, void>): { value: T; yields: number } {
  let yields = 0;
  for (;;) {
    const r = steps.next();
    if (r.done) return { value: r.value, yields };
    yields++;
  }
}

const q = (over: Partial<StoreQuery>): StoreQuery => ({ conditions: [], sort: [], limit: 50, offset: 0, ...over });
const CASES: Array<[string, StoreQuery, number]> = [
  ['deepest page sorted on an unindexed field', q({ sort: [{ path: 'age', dir: -1 }, { path: 'role', dir: 1 }], offset: N - 30 }), 3],
  ['a page past the middle, 100 long, unindexed sort', q({ sort: [{ path: 'nested.y', dir: 1 }], offset: 2500, limit: 100 }), 3],
  ['deepest page of an index walk', q({ sort: [{ path: 'score', dir: 1 }], offset: N - 40 }), 3],
  ['an index walk, descending, filtered', q({ sort: [{ path: 'score', dir: -1 }], conditions: [{ path: 'role', op: '$eq', values: ['admin'] }], offset: 1200 }), 2],
  ['100 $in values', q({ conditions: [{ path: 'mixed', op: '$in', values: [1, '2', 'x', ...Array.from({ length: 97 }, (_, i) => `v${i}`)] }], sort: [{ path: 'age', dir: 1 }] }), 2],
  ['100 $nin values, counted', q({ conditions: [{ path: 'nested.y', op: '$nin', values: ['a', ...Array.from({ length: 99 }, (_, i) => `v${i}`)] }], limit: 0 }), 2],
  ['a count with two conditions', q({ conditions: [{ path: 'age', op: '$gte', values: [30] }, { path: 'active', op: '$eq', values: [true] }], limit: 0 }), 2],
];

describe('list queries in steps', () => {
  for (const [name, query, minYields] of CASES) {
    it(`${name}: divided into steps, the plain answer`, async () => {
      const { s } = await store();
      const { value, yields } = drive(s.querySteps(query));
      expect(yields).toBeGreaterThanOrEqual(minYields);
      expect(value).toEqual(reference(s.all(), query));
      expect(await embeddedStore(s).find(query)).toEqual(value);
    });
  }

  it('an index walk paused while writes reshape the tree resumes after the last key it finished', async () => {
    const { s, rand } = await store();
    const query = q({ sort: [{ path: 'score', dir: 1 }], limit: 100, offset: 3000 });
    const steps = s.querySteps(query);
    expect(steps.next().done).toBe(false);
    // Meanwhile: many inserts on both sides of where the walk is, removals and replacements.
    for (let i = 0; i < 400; i++) await s.insert({ ...makeDoc(rand, 50_000 + i, false), score: i % 2 ? -1 - i : 1000 + i });
    const ids = s.all().map((d) => d._id);
    for (let i = 0; i < 50; i++) await s.remove(ids[i * 7]);
    let r = steps.next();
    while (!r.done) r = steps.next();
    const page = r.value.data;
    expect(page).toHaveLength(100);
    expect(new Set(page.map((d: Doc) => d._id)).size).toBe(100);
    const cmp = comparator(query.sort);
    for (let i = 1; i < page.length; i++) expect(cmp(page[i - 1], page[i])).toBeLessThan(0);
    // Nothing inserted before the walk's place (negative scores) is in it; with no condition the
    // total is the store's size when the query started.
    expect(page.every((d: Doc) => (d.score as number) >= 0)).toBe(true);
    expect(r.value.total).toBe(N);
  });

  it('a pass over an index bucket that paused while the store changed starts again and answers for the store as it is', async () => {
    const { s } = await store();
    await s.ensureIndex({ fieldName: 'role' });
    const admins = () => s.all().filter((d) => d.role === 'admin');
    const query = q({ conditions: [{ path: 'role', op: '$eq', values: ['admin'] }], sort: [{ path: 'name', dir: 1 }, { path: 'score', dir: -1 }], limit: 100 });
    // Enough admins for the pass to pause inside the bucket.
    for (let i = 0; i < 2500; i++) await s.insert({ _id: `adm${i}`, createdAt: '2031-01-01T00:00:00.000Z', role: 'admin', score: i });
    expect(admins().length).toBeGreaterThan(3000);
    const steps = s.querySteps(query);
    expect(steps.next().done).toBe(false);
    // Meanwhile every admin is rewritten (each moves to the end of the bucket) and some leave it.
    for (const d of admins()) await s.replace(d._id, { ...d, score: -1 });
    for (const d of admins().slice(0, 300)) await s.replace(d._id, { ...d, role: 'guest' });
    let r = steps.next();
    while (!r.done) r = steps.next();
    expect(r.value).toEqual(reference(s.all(), query));
  });

  it('runSliced answers at once when the steps end without a pause, and through a promise when they outlast a slice', async () => {
    function* none(): Generator<void, number, void> { return 7; }
    expect(runSliced(none())).toBe(7);
    // Steps that end only once something else has run: they can end only if runSliced gives the
    // event loop a turn (else they would spin until the test times out).
    let others = 0;
    function* waiting(): Generator<void, number, void> { const end = performance.now() + 30; while (performance.now() < end || others === 0) yield; return others; }
    const long = runSliced(waiting());
    expect(long).toBeInstanceOf(Promise);
    setImmediate(() => { others++; });
    expect(await long).toBeGreaterThan(0);
  });
});
