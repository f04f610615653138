// A store copied from another (a fork's: DocStore.copySource, then fromCopy) starts with the
// other's indexes themselves, not copies of them. Whichever of the two writes first copies the
// indexes for itself before changing them: writes to the copy (inserts, replacements, deletes,
// a unique refusal, a new index) never show in the other store's answers, nor the other's in
// the copy's, and every store answers as the full scan over its own documents does.
import { describe, expect, it } from 'vitest';
import { DocStore } from './doc-store.js';
import { makeDoc, prng, randomQuery, reference } from '../query-cases.js';
import type { Doc } from '../query.js';

const FIELDS = ['role', 'age', 'score', 'nested.x'];

async function source(n: number): Promise<DocStore> {
  const store = await DocStore.open({});
  const rand = prng(7);
  await store.insertMany(Array.from({ length: n }, (_, i) => ({ ...makeDoc(rand, i, false), code: `c${i}` })));
  for (const f of FIELDS) await store.ensureIndex({ fieldName: f });
  await store.ensureIndex({ fieldName: 'code', unique: true });
  return store;
}

const copyOf = (store: DocStore) => DocStore.fromCopy(store.copySource());

/** Every answer of `store` is the full scan's over `docs` (random queries, gets, the count). */
function answersAs(store: DocStore, docs: Doc[], seed: number) {
  const rand = prng(seed);
  for (let i = 0; i < 60; i++) {
    const q = randomQuery(rand);
    expect(store.find(q), JSON.stringify(q)).toEqual(reference(docs, q));
  }
  expect(store.size).toBe(docs.length);
  for (const d of docs.slice(0, 20)) expect(store.get(d._id as string)).toEqual(d);
  expect([...store.all()].sort((a, b) => String(a._id).localeCompare(String(b._id))))
    .toEqual([...docs].sort((a, b) => String(a._id).localeCompare(String(b._id))));
}

describe('indexes shared by a copied store', () => {
  it('writes to the copy leave the source as it was, and the copy answers from its own documents', async () => {
    const src = await source(400);
    const before = src.all().slice();
    const copy = await copyOf(src);
    answersAs(copy, before, 1);

    await copy.insert({ _id: 'new', role: 'admin', age: 7, code: 'fresh', createdAt: '2024-01-01T00:00:00.000Z' });
    const first = before[0];
    await copy.replace(first._id as string, { ...first, role: 'changed', age: 999, code: 'moved' });
    await copy.remove(before[1]._id as string);
    // A unique refusal in the copy (a replacement taking another document's code: the direct
    // index check of replacements, and an insert).
    await expect(copy.replace(before[2]._id as string, { ...before[2], code: before[3].code })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(copy.insert({ _id: 'dup', code: before[4].code })).rejects.toMatchObject({ code: 'CONFLICT' });
    await copy.ensureIndex({ fieldName: 'extra' });

    answersAs(src, before, 2);
    expect(src.findBy('code', 'moved')).toEqual([]);
    expect(src.findBy('role', 'changed')).toEqual([]);
    expect(src.get('new')).toBeUndefined();
    expect(src.hasIndex('extra')).toBe(false);

    const copyDocs = copy.all().slice();
    expect(copyDocs).toHaveLength(before.length);
    expect(copy.get(before[1]._id as string)).toBeUndefined();
    expect(copy.findBy('code', 'moved').map((d) => d._id)).toEqual([first._id]);
    answersAs(copy, copyDocs, 3);
  });

  it('writes to the source leave copies taken before as they were, copies of copies included', async () => {
    const src = await source(300);
    const before = src.all().slice();
    const copy = await copyOf(src);
    const copyOfCopy = await copyOf(copy);

    await src.replace(before[0]._id as string, { ...before[0], role: 'src-only', code: 'src-code' });
    await src.remove(before[5]._id as string);
    await src.insert({ _id: 'src-new', role: 'admin', code: 'src-new' });
    // The code freed in the source is still taken in the copies.
    await expect(copy.insert({ _id: 'x', code: before[0].code })).rejects.toMatchObject({ code: 'CONFLICT' });

    answersAs(copy, before, 4);
    answersAs(copyOfCopy, before, 5);
    expect(copy.findBy('role', 'src-only')).toEqual([]);

    await copyOfCopy.remove(before[6]._id as string);
    answersAs(copy, before, 6);
    expect(copyOfCopy.size).toBe(before.length - 1);

    const srcDocs = src.all().slice();
    expect(srcDocs).toHaveLength(before.length);
    answersAs(src, srcDocs, 7);
  });

  it('a second copy of an unchanged source shares the same indexes, and both copies stay apart', async () => {
    const src = await source(200);
    const before = src.all().slice();
    const a = await copyOf(src);
    const b = await copyOf(src);
    await a.insert({ _id: 'only-a', code: 'only-a' });
    await b.insert({ _id: 'only-b', code: 'only-b' });
    expect(a.get('only-b')).toBeUndefined();
    expect(b.get('only-a')).toBeUndefined();
    answersAs(src, before, 8);
    expect(a.findBy('code', 'only-a')).toHaveLength(1);
    expect(b.findBy('code', 'only-a')).toHaveLength(0);
  });
});
