// Reads by id on PostgreSQL go out together (read-batch.ts): the reads asked in one turn of the
// event loop are one statement, whatever stores they are of, each answered with its own document
// (or nothing), the same document asked twice read once; a read asked after a write sees it; one
// store's table gone fails only its own reads; a read inside a write group sees the group's
// writes (it runs on the group's transaction instead).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pgBin } from '../../test/pg-cluster.js';
import { usePgDatabase } from '../../test/pg-suite.js';
import { recordStatements } from '../../test/pg-statements.js';
import { getEach } from '../store.js';
import { inWriteGroup } from '../write-group.js';
import { MAX_BATCH_IDS, MAX_NAMED_SHAPES } from './read-batch.js';

const suite = usePgDatabase('readbatch');

const statements = (): string[] => recordStatements(suite.db);

afterEach(() => { vi.restoreAllMocks(); });

describe.skipIf(!pgBin)('reads by id, batched', () => {
  it('reads asked together are one statement over every store asked, each answered with its own document', async () => {
    const [a, b] = [await suite.db.store('w', 'a'), await suite.db.store('w', 'b')];
    await a.insert({ _id: 'x', v: 'a-x' });
    await a.insert({ _id: 'y', v: 'a-y' });
    await b.insert({ _id: 'x', v: 'b-x' });
    const seen = statements();
    const answers = await Promise.all([a.get('x'), b.get('x'), a.get('y'), a.get('x'), b.get('missing'), a.get('y')]);
    expect(answers).toEqual([{ _id: 'x', v: 'a-x' }, { _id: 'x', v: 'b-x' }, { _id: 'y', v: 'a-y' }, { _id: 'x', v: 'a-x' }, undefined, { _id: 'y', v: 'a-y' }]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/UNION ALL/);
    // getEach (the session check's read of a session and its user) is batched the same way.
    expect(await getEach([[a, 'y'], [b, 'x'], [a, 'nope']])).toEqual([{ _id: 'y', v: 'a-y' }, { _id: 'x', v: 'b-x' }, undefined]);
    expect(seen).toHaveLength(2);
    // A read alone is one statement of its own store.
    expect(await b.get('x')).toEqual({ _id: 'x', v: 'b-x' });
    expect(seen).toHaveLength(3);
    expect(seen[2]).not.toMatch(/UNION ALL/);
  });

  it('name at most MAX_NAMED_SHAPES statements over several stores: the others are sent unnamed', async () => {
    // A named statement stays prepared, with its plan (about 50 kB for three stores), on every
    // connection that ran it, and the stores a turn reads together are the callers' choice (GETs
    // of records of different collections arriving together): one name per set of stores would
    // let the sets, and the connections' memory, grow without end.
    const stores = await Promise.all(Array.from({ length: 12 }, (_, i) => suite.db.store('w', `shape${i}`)));
    for (const [i, s] of stores.entries()) await s.insert({ _id: 'x', i });
    const names: Array<string | undefined> = [];
    const query = suite.db.query.bind(suite.db);
    vi.spyOn(suite.db, 'query').mockImplementation(((text: string, values?: unknown[], on?: unknown, name?: string) => {
      if (/ AS v FROM /.test(text)) names.push(name);
      return (query as (...a: unknown[]) => unknown)(text, values, on, name);
    }) as typeof suite.db.query);
    let sets = 0;
    for (let a = 0; a < 12; a++) for (let b = a + 1; b < 12; b++) for (let c = b + 1; c < 12; c++) {
      expect(await Promise.all([stores[a].get('x'), stores[b].get('x'), stores[c].get('x')])).toEqual([{ _id: 'x', i: a }, { _id: 'x', i: b }, { _id: 'x', i: c }]);
      sets++;
    }
    expect(names).toHaveLength(sets); // one statement per set
    const named = new Set(names.filter((n) => n !== undefined));
    expect(sets).toBeGreaterThan(MAX_NAMED_SHAPES);
    expect(named.size).toBeGreaterThan(0);
    expect(named.size).toBeLessThanOrEqual(MAX_NAMED_SHAPES);
    // A store read alone keeps its name (one per store, as its other statements).
    names.length = 0;
    expect(await stores[11].get('x')).toEqual({ _id: 'x', i: 11 });
    expect(names).toEqual([expect.any(String)]);
  });

  it('whole stores read together (all) go in the same statement as the reads by id, each ordered by id', async () => {
    const [a, b, c] = [await suite.db.store('w', 'sa'), await suite.db.store('w', 'sb'), await suite.db.store('w', 'sc')];
    await a.insertMany([{ _id: 'z', n: 1 }, { _id: 'B', n: 2 }, { _id: 'a', n: 3 }]);
    await b.insert({ _id: 'only', n: 4 });
    await c.insert({ _id: 'k', n: 5 });
    const seen = statements();
    const [allA, allB, again, one, empty] = await Promise.all([a.all(), b.all(), a.all(), c.get('k'), (await suite.db.store('w', 'sempty')).all()]);
    expect(allA.map((d) => d._id)).toEqual(['B', 'a', 'z']); // byte order, as the embedded driver's ids
    expect(allB).toEqual([{ _id: 'only', n: 4 }]);
    expect(again).toEqual(allA);
    expect(again).not.toBe(allA); // an array each
    expect(one).toEqual({ _id: 'k', n: 5 });
    expect(empty).toEqual([]);
    // The store 'sempty' was opened (a statement of its own, its table created) after the others were asked.
    expect(seen.filter((t) => /UNION ALL/.test(t))).toHaveLength(1);
    // A whole store read after a write has finished sees it; inside a write group, the group's writes.
    await b.insert({ _id: 'more', n: 6 });
    expect((await b.all()).map((d) => d._id)).toEqual(['more', 'only']);
    await inWriteGroup('w', async () => {
      await b.remove('only');
      expect((await b.all()).map((d) => d._id)).toEqual(['more']);
      return { commit: false, value: undefined };
    });
    expect((await b.all()).map((d) => d._id)).toEqual(['more', 'only']);
  });

  it('a read asked after a write has finished sees it', async () => {
    const s = await suite.db.store('w', 'rw');
    await s.insert({ _id: 'k', n: 1 });
    expect(await s.get('k')).toEqual({ _id: 'k', n: 1 });
    await s.replace('k', { _id: 'k', n: 2 });
    expect(await s.get('k')).toEqual({ _id: 'k', n: 2 });
    await s.remove('k');
    expect(await s.get('k')).toBeUndefined();
  });

  it('more reads than one statement takes are answered over several', async () => {
    const s = await suite.db.store('w', 'many');
    const n = MAX_BATCH_IDS + 120;
    await s.insertMany(Array.from({ length: n }, (_, i) => ({ _id: `d${i}`, i })));
    const seen = statements();
    const got = await Promise.all(Array.from({ length: n }, (_, i) => s.get(`d${i}`)));
    expect(got.map((d) => d?.i)).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(seen).toHaveLength(2);
  });

  it("a store whose table is gone fails its own reads, not the others' read with them", async () => {
    const [kept, gone] = [await suite.db.store('w', 'kept'), await suite.db.store('w', 'gone')];
    await kept.insert({ _id: 'k', v: 1 });
    await gone.insert({ _id: 'g', v: 2 });
    await suite.db.query(`DROP TABLE ${gone.table}`);
    const [ok, failed] = await Promise.allSettled([kept.get('k'), gone.get('g')]);
    expect(ok).toEqual({ status: 'fulfilled', value: { _id: 'k', v: 1 } });
    expect(failed.status).toBe('rejected');
    expect(String((failed as PromiseRejectedResult).reason)).toMatch(/does not exist/);
  });

  it("a read inside a write group sees the group's own writes; a read outside it, not until it commits", async () => {
    const s = await suite.db.store('w', 'group');
    await s.insert({ _id: 'g', v: 'before' });
    let go!: () => void;
    const started = new Promise<void>((resolve) => { go = resolve; });
    const outsideRead = started.then(() => s.get('g')); // registered outside the group: runs outside it
    await inWriteGroup('w', async () => {
      await s.replace('g', { _id: 'g', v: 'inside' });
      expect(await Promise.all([s.get('g'), s.getWith('g', [])])).toEqual([{ _id: 'g', v: 'inside' }, [{ _id: 'g', v: 'inside' }]]);
      go();
      expect(await outsideRead).toEqual({ _id: 'g', v: 'before' });
      return { commit: true, value: undefined };
    });
    expect(await s.get('g')).toEqual({ _id: 'g', v: 'inside' });
  });
});
