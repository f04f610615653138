// Indexes built after a big store's load (DocStore's deferIndexesAbove): until they are built the
// store answers every query by scanning (and `get` from the loader's map), a write builds the
// `_id` tree first, writes in between are in each index once it is built, and no rewrite of the
// file (compaction, replaceAll) ever leaves an index line out.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DocStore } from './doc-store.js';
import { readDatafile } from './datafile.js';
import { makeDoc, prng, randomQuery, reference } from '../query-cases.js';
import type { Doc } from '../query.js';

const dirs: string[] = [];
afterAll(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

const FIELDS = ['role', 'age', 'score', 'nested.x'];

/** The documents of a file, read apart from the store (store.all() would build its `_id` tree). */
const fileDocs = async (file: string) => (await readDatafile(file)).docs as Doc[];

/** A file-backed store of `n` random documents with indexes on FIELDS, closed, then reopened
 *  with the given deferral threshold. */
async function reopened(n: number, deferIndexesAbove: number, sortOrdersFrom?: number): Promise<{ store: DocStore; file: string; docs: Doc[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'hb-deferred-'));
  dirs.push(dir);
  const file = join(dir, 'people.db');
  const first = await DocStore.open({ filename: file, compactEvery: 0 });
  const rand = prng(12);
  await first.insertMany(Array.from({ length: n }, (_, i) => ({ ...makeDoc(rand, i, false), ...(i % 2 ? { code: `c${i}` } : {}) })));
  for (const f of FIELDS) await first.ensureIndex({ fieldName: f });
  await first.ensureIndex({ fieldName: 'code', unique: true });
  await first.close();
  const docs = await fileDocs(file); // read before: the builds go on while a read waits
  return { store: await DocStore.open({ filename: file, compactEvery: 0, deferIndexesAbove, sortOrdersFrom }), file, docs };
}

const nextTurn = () => new Promise((r) => setImmediate(r));
async function allBuilt(store: DocStore) { for (let i = 0; i < 20 && store.deferredIndexes.length; i++) await nextTurn(); }

function sameAsReference(store: DocStore, docs: Doc[], seed: number, queries: number) {
  const rand = prng(seed);
  for (let i = 0; i < queries; i++) {
    const q = randomQuery(rand);
    expect(store.find(q), JSON.stringify(q)).toEqual(reference(docs, q));
  }
}

describe('deferred indexes', () => {
  it('a big store opens with _id and its non-unique indexes unbuilt, answers as the full scan does, and builds them one per turn', async () => {
    const { store, file, docs } = await reopened(600, 100);
    expect(store.deferredIndexes[0]).toBe('_id');
    expect(store.deferredIndexes.slice(1).sort()).toEqual(['age', 'createdAt', 'nested.x', 'role', 'score']);
    expect(store.hasIndex('role')).toBe(true); // listed and kept, only not built yet
    expect(store.listIndexes().map((i) => i.fieldName).sort()).toEqual(['age', 'code', 'createdAt', 'nested.x', 'role', 'score']);
    for (const d of docs.slice(0, 50)) expect(store.get(d._id as string)).toEqual(d);
    expect(store.get('nope')).toBeUndefined();
    expect(store.findBy('_id', docs[7]._id)).toEqual([docs[7]]);
    expect(store.find({ conditions: [{ path: '_id', op: '$in', values: [docs[3]._id, docs[9]._id] }], sort: [{ path: '_id', dir: 1 }], limit: 10, offset: 0 }).total).toBe(2);
    sameAsReference(store, docs, 1, 150);
    expect(store.deferredIndexes[0]).toBe('_id'); // reads left it for later
    await nextTurn();
    expect(store.deferredIndexes.length).toBe(5); // _id first, then one per turn
    await nextTurn();
    expect(store.deferredIndexes.length).toBe(4);
    await allBuilt(store);
    expect(store.deferredIndexes).toEqual([]);
    sameAsReference(store, store.all(), 2, 150);
    await store.close();
  });

  it('a write before the _id tree is built builds it first; all() is in id order', async () => {
    const { store, file, docs } = await reopened(600, 100);
    await store.insert({ _id: 'fresh1', createdAt: new Date().toISOString(), role: 'admin' });
    expect(store.deferredIndexes).not.toContain('_id');
    expect(store.get('fresh1')?.role).toBe('admin');
    expect(store.get(docs[5]._id as string)).toEqual(docs[5]);
    expect(store.all().map((d) => d._id)).toEqual([...docs.map((d) => d._id as string), 'fresh1'].sort());
    await expect(store.insert({ _id: docs[0]._id, createdAt: new Date().toISOString() })).rejects.toMatchObject({ name: 'UniqueViolationError' });
    await store.close();
    const again = await DocStore.open({ filename: file, compactEvery: 0, deferIndexesAbove: 100 });
    expect(again.get('fresh1')?.role).toBe('admin');
    expect(again.size).toBe(docs.length + 1);
    await again.close();
  });

  it('writes made before an index is built are in it once built', async () => {
    const { store, docs } = await reopened(600, 100);
    const rand = prng(3);
    const ids = docs.map((d) => d._id as string);
    for (let i = 0; i < 60; i++) {
      const id = ids[i * 7];
      if (i % 3 === 0) await store.remove(id);
      else await store.replace(id, { ...makeDoc(rand, 5000 + i, false), _id: id, createdAt: store.get(id)!.createdAt });
    }
    await store.insert({ ...makeDoc(rand, 9999, false), _id: 'fresh', role: 'admin', age: 99 });
    await allBuilt(store);
    sameAsReference(store, store.all(), 4, 200);
    // The built index holds exactly what a scan finds.
    const byIndex = store.findBy('role', 'admin').map((d: Doc) => d._id).sort();
    expect(byIndex).toEqual(store.all().filter((d) => d.role === 'admin').map((d) => d._id).sort());
    expect(byIndex).toContain('fresh');
    await store.close();
  });

  it('a compaction before the build still writes every index line, and a removed unbuilt index stays removed', async () => {
    const { store, file } = await reopened(600, 100);
    expect(store.deferredIndexes).toContain('age');
    await store.removeIndex('score');
    expect(store.hasIndex('score')).toBe(false);
    await store.insert({ _id: 'x1', createdAt: new Date().toISOString(), role: 'guest' });
    await store.compact();
    await allBuilt(store);
    expect(store.deferredIndexes).toEqual([]);
    expect(store.listIndexes().map((i) => i.fieldName).sort()).toEqual(['age', 'code', 'createdAt', 'nested.x', 'role']);
    const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l.includes('$$indexCreated')).map((l) => JSON.parse(l).$$indexCreated.fieldName).sort();
    expect(lines).toEqual(['age', 'code', 'createdAt', 'nested.x', 'role']);
    await store.close();
    const again = await DocStore.open({ filename: file, compactEvery: 0 });
    expect(again.listIndexes().map((i) => i.fieldName).sort()).toEqual(['age', 'code', 'createdAt', 'nested.x', 'role']);
    expect(again.get('x1')?.role).toBe('guest');
    await again.close();
  });

  it('a replaceAll before the build leaves every index built over the new content, and written', async () => {
    const { store, file } = await reopened(600, 100);
    const rand = prng(8);
    const next: Doc[] = Array.from({ length: 300 }, (_, i) => ({ ...makeDoc(rand, 20_000 + i, false), code: `n${i}` }));
    await store.replaceAll(next);
    expect(store.deferredIndexes).toEqual([]);
    sameAsReference(store, store.all(), 6, 150);
    expect(store.findBy('role', 'admin').length).toBe(next.filter((d) => d.role === 'admin').length);
    await store.close();
    const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l.includes('$$indexCreated')).map((l) => JSON.parse(l).$$indexCreated.fieldName).sort();
    expect(lines).toEqual(['age', 'code', 'createdAt', 'nested.x', 'role', 'score']);
  });

  it('a file that needs a rewrite is loaded with every index built', async () => {
    const { store, file } = await reopened(600, 100);
    await store.insert({ _id: 'x2', createdAt: new Date().toISOString(), role: 'guest' });
    await store.replace('x2', { _id: 'x2', createdAt: new Date().toISOString(), role: 'admin' }); // a superseded line
    await store.detach();
    const again = await DocStore.open({ filename: file, compactEvery: 0, deferIndexesAbove: 100 });
    expect(again.deferredIndexes).toEqual([]);
    expect(again.findBy('role', 'admin').map((d) => d._id)).toContain('x2');
    await again.close();
  });

  it('unique indexes are never deferred: they refuse a duplicate from the first write on', async () => {
    const { store } = await reopened(600, 100);
    expect(store.deferredIndexes).not.toContain('code');
    await expect(store.insert({ _id: 'dup', createdAt: new Date().toISOString(), code: 'c1' })).rejects.toMatchObject({ name: 'UniqueViolationError' });
    expect(store.get('dup')).toBeUndefined();
    await store.close();
  });

  it('a list that goes on over several turns is answered before any deferred build, and later lists do not hold the builds back', async () => {
    const { store, docs } = await reopened(4000, 100);
    // Every look at the clock says the slice is over: each list pauses after every chunk of work.
    let clock = 0;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => (clock += 50));
    try {
      // The first page in the default order: createdAt's index is unbuilt, so the list scans.
      const first = { conditions: [], sort: [{ path: 'createdAt', dir: -1 as const }], limit: 1, offset: 0 };
      const answer = store.findSliced(first);
      expect(answer).toBeInstanceOf(Promise);
      const unbuilt = store.deferredIndexes.length;
      expect(unbuilt).toBe(6);
      const result = await answer;
      expect(store.deferredIndexes.length).toBe(unbuilt); // nothing built while it ran
      expect(result).toEqual(reference(docs, first));
      // A new list every turn: each build waits at most for the lists of its own turn.
      let turns = 0;
      const lists: Array<Promise<unknown>> = [];
      for (; turns < 200 && store.deferredIndexes.length; turns++) {
        const q = { conditions: [], sort: [{ path: 'mixed', dir: 1 as const }], limit: 1 + turns, offset: 0 };
        const r = store.findSliced(q);
        expect(r).toBeInstanceOf(Promise);
        lists.push(Promise.resolve(r).then((x) => expect(x).toEqual(reference(docs, q))));
        await nextTurn();
      }
      expect(store.deferredIndexes).toEqual([]);
      expect(turns).toBeLessThan(200);
      await Promise.all(lists);
    } finally {
      now.mockRestore();
    }
    sameAsReference(store, store.all(), 9, 100);
    await store.close();
  });

  it('a list sorted on a field whose index is not built yet makes no sort order for it; one without an index does', async () => {
    const { store, docs } = await reopened(600, 100, 100);
    const newest = { conditions: [], sort: [{ path: 'createdAt', dir: -1 as const }], limit: 1, offset: 0 };
    const byId = { conditions: [], sort: [{ path: '_id', dir: 1 as const }], limit: 3, offset: 0 };
    expect(store.deferredIndexes).toContain('createdAt');
    expect(await store.findSliced(newest)).toEqual(reference(docs, newest));
    expect(await store.findSliced(byId)).toEqual(reference(docs, byId));
    expect(store.find({ ...newest, limit: 2 })).toEqual(reference(docs, { ...newest, limit: 2 }));
    const unsorted = { conditions: [], sort: [], limit: 1, offset: 0 }; // the default order: createdAt
    expect(await store.findSliced(unsorted)).toEqual(reference(docs, unsorted));
    expect(store.sortOrders).toEqual([]);
    const mixed = { conditions: [], sort: [{ path: 'mixed', dir: 1 as const }], limit: 5, offset: 0 };
    expect(await store.findSliced(mixed)).toEqual(reference(docs, mixed));
    expect(store.sortOrders.map((o) => o.path)).toEqual(['mixed']);
    await allBuilt(store);
    expect(await store.findSliced(newest)).toEqual(reference(docs, newest)); // now through the index
    expect(store.sortOrders.map((o) => o.path)).toEqual(['mixed']);
    await store.close();
  });

  it('a small store builds its indexes at once', async () => {
    const { store } = await reopened(50, 100);
    expect(store.deferredIndexes).toEqual([]);
    await store.close();
  });
});
