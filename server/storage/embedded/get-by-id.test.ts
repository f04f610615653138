// DocStore.get walks the `_id` tree itself (not nedb's search): it must find exactly what a map of
// the live documents holds, through inserts, replacements, deletes, a compaction, a whole
// replacement and an emptied store, for ids present, gone, never seen, and outside the range.
import { describe, expect, it } from 'vitest';
import { DocStore } from './doc-store.js';
import { prng } from '../query-cases.js';
import type { Doc } from '../query.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomId = (rand: () => number) => Array.from({ length: 1 + Math.floor(rand() * 12) }, () => ALPHABET[Math.floor(rand() * ALPHABET.length)]).join('');

function expectSame(store: DocStore, live: Map<string, Doc>, probes: string[]): void {
  for (const id of probes) expect(store.get(id), id).toEqual(live.get(id));
  for (const [id, doc] of live) expect(store.get(id), id).toEqual(doc);
}

describe('DocStore.get by id', () => {
  it('answers what a map of the live documents holds, through every kind of write', async () => {
    const store = await DocStore.open();
    const rand = prng(5);
    const live = new Map<string, Doc>();
    const probes = ['', '0', 'zzzzzzzzzzzzzz', 'A', 'a', 'constructor', '__proto__'];
    expect(store.get('anything')).toBeUndefined(); // empty tree
    for (let i = 0; i < 1500; i++) {
      const id = randomId(rand);
      probes.push(id);
      if (live.has(id)) continue;
      const doc = { _id: id, n: i };
      await store.insert(doc);
      live.set(id, doc);
    }
    expectSame(store, live, probes);
    const ids = [...live.keys()];
    for (let i = 0; i < ids.length; i += 3) { await store.remove(ids[i]); live.delete(ids[i]); }
    for (let i = 1; i < ids.length; i += 7) {
      const doc = { _id: ids[i], n: -i };
      // replacing a removed id changes nothing
      if (await store.replace(ids[i], doc)) live.set(ids[i], doc);
      else expect(live.has(ids[i])).toBe(false);
    }
    expectSame(store, live, probes);
    await store.compact();
    expectSame(store, live, probes);
    const kept = [...live.values()].slice(0, 40);
    await store.replaceAll(kept);
    live.clear();
    for (const d of kept) live.set(d._id as string, d);
    expectSame(store, live, probes);
    for (const d of kept) await store.remove(d._id as string);
    live.clear();
    expectSame(store, live, probes); // emptied again
    expect(store.get(42 as unknown as string)).toBeUndefined();
    await store.close();
  });
});
