// Removals from the buckets of an index tree (bucket-positions.ts): a big bucket finds the
// document through a map of places, which must give the same bucket contents as a scan through
// any mix of pushes and removals, and never trust a place the bucket no longer holds.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIG_BUCKET, removeFromBucket } from './bucket-positions.js';
import { DocStore } from './doc-store.js';

/** A deterministic pseudo-random sequence (mulberry32). */
function prng(seed: number): () => number {
  let a = seed;
  return () => { a = (a + 0x6d2b79f5) | 0; let t = Math.imul(a ^ (a >>> 15), 1 | a); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}
const ids = (a: unknown[]) => (a as Array<{ id: number }>).map((d) => d.id).sort((x, y) => x - y);

describe('removeFromBucket', () => {
  it('leaves the same documents as a scan would, through pushes and removals around the size where the map starts', () => {
    const rand = prng(7);
    const bucket: unknown[] = [];
    const model = new Set<{ id: number }>();
    let next = 0;
    for (let step = 0; step < 20_000; step++) {
      // Grow to about twice BIG_BUCKET, shrink below it, grow again.
      const target = step % 8_000 < 4_000 ? 2 * BIG_BUCKET : BIG_BUCKET / 2;
      if (model.size < target ? rand() < 0.7 : rand() < 0.3) {
        const d = { id: next++ };
        bucket.push(d); model.add(d);
      } else if (model.size) {
        const all = [...model];
        const d = all[Math.floor(rand() * all.length)];
        removeFromBucket(bucket, d); model.delete(d);
      }
      if (step % 97 === 0) expect(ids(bucket)).toEqual(ids([...model]));
    }
    expect(ids(bucket)).toEqual(ids([...model]));
  });

  it('finds a document the bucket moved by other means, and leaves one it does not hold', () => {
    const docs = Array.from({ length: BIG_BUCKET * 2 }, (_, id) => ({ id }));
    const bucket: unknown[] = [...docs];
    removeFromBucket(bucket, docs[0]); // the map is made
    bucket.reverse(); // every place it knows is now wrong
    for (const d of docs.slice(1, 40)) removeFromBucket(bucket, d);
    removeFromBucket(bucket, { id: -1 });
    removeFromBucket(bucket, docs[0]); // already gone
    expect(ids(bucket)).toEqual(docs.slice(40).map((d) => d.id));
  });

  it('takes out every copy of a document the bucket holds twice', () => {
    const docs = Array.from({ length: BIG_BUCKET + 10 }, (_, id) => ({ id }));
    const bucket: unknown[] = [...docs];
    removeFromBucket(bucket, docs[1]);
    bucket.push(docs[5]);
    removeFromBucket(bucket, docs[5]);
    expect(bucket).not.toContain(docs[5]);
    expect(ids(bucket)).toEqual(docs.filter((d) => d.id !== 1 && d.id !== 5).map((d) => d.id));
  });
});

describe('a store whose indexed values many records share', () => {
  const dirs: string[] = [];
  afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

  it('answers filters on them as its documents say, through random creates, updates and deletes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hb-buckets-'));
    dirs.push(dir);
    const s = await DocStore.open({ filename: join(dir, 'people.db') });
    await s.ensureIndex({ fieldName: 'role' });
    await s.ensureIndex({ fieldName: 'team' }); // absent from most records: one big bucket under no value
    const rand = prng(11);
    const roles = ['a', 'b', 'c'];
    const doc = (id: string) => ({ _id: id, role: roles[Math.floor(rand() * 3)], ...(rand() < 0.1 ? { team: 'x' } : {}), n: rand() });
    await s.insertMany(Array.from({ length: 1_500 }, (_, i) => doc(`p${i}`)));
    let next = 1_500;
    for (let step = 0; step < 3_000; step++) {
      const all = s.all();
      const r = rand();
      const pick = all[Math.floor(rand() * all.length)];
      if (r < 0.2) await s.insert(doc(`p${next++}`));
      else if (r < 0.35) await s.remove(pick._id);
      else if (r < 0.7) await s.replace(pick._id, { ...pick, n: rand() }); // same keys
      else await s.replace(pick._id, doc(pick._id)); // keys may change
    }
    const all = s.all();
    const byQuery = (path: string, value: unknown) => s.find({ conditions: [{ path, op: '$eq', values: [value] }], sort: [], limit: 100_000, offset: 0 }).data.map((d) => d._id).sort();
    for (const role of roles) expect(byQuery('role', role)).toEqual(all.filter((d) => d.role === role).map((d) => d._id).sort());
    expect(byQuery('team', 'x')).toEqual(all.filter((d) => d.team === 'x').map((d) => d._id).sort());
    const index = (s as unknown as { engine: { indexes: Record<string, { getMatching(v: unknown): Array<{ _id: string }> }> } }).engine.indexes;
    expect(index.team.getMatching(undefined).map((d) => d._id).sort()).toEqual(all.filter((d) => d.team === undefined).map((d) => d._id).sort());
    expect(index.role.getMatching('a').length + index.role.getMatching('b').length + index.role.getMatching('c').length).toBe(all.length);
    await s.close();
  });
});
