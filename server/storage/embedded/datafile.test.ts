// The fast datafile loader and the bulk index builder against nedb's own: same documents, same
// index trees (valid AVL), same errors; the file is rewritten only when it needs compaction,
// and a crash-interrupted rewrite (`file~`) is recovered.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat, writeFile, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { DocStore } from './doc-store.js';
import { readDatafile } from './datafile.js';
import { bulkResetIndex } from './bulk-index.js';
import type { NedbIndex } from './nedb-types.js';

const require = createRequire(import.meta.url);
const Datastore = require('@seald-io/nedb') as new (o: object) => any;
const Index = require('@seald-io/nedb/lib/indexes.js') as new (o: object) => NedbIndex & { insert(d: unknown): void; tree: any };

const dirs: string[] = [];
async function tempDir() { const d = await mkdtemp(join(tmpdir(), 'hb-datafile-')); dirs.push(d); return d; }
afterAll(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

/** In-order (key, bucket ids) pairs of an index tree. */
function contents(index: { tree: any }): Array<[unknown, string[]]> {
  const out: Array<[unknown, string[]]> = [];
  index.tree.executeOnEveryNode((n: any) => { out.push([n.key, n.data.map((d: any) => d._id)]); });
  return out;
}

async function nedbLoad(file: string) {
  const ds = new Datastore({ filename: file });
  await ds.loadDatabaseAsync();
  return ds;
}

describe('bulk index build', () => {
  const docs = [
    { _id: 'a', v: 3 }, { _id: 'b', v: 'x' }, { _id: 'c' }, { _id: 'd', v: null }, { _id: 'e', v: [1, 3, 3] },
    { _id: 'f', v: new Date(5) }, { _id: 'g', v: true }, { _id: 'h', v: 3 }, { _id: 'i', v: { k: 1 } }, { _id: 'j', v: [] },
    { _id: 'k', v: 'x' }, { _id: 'l', v: new Date(5) }, { _id: 'm', v: 2.5 }, { _id: 'n', v: '3' },
  ];

  for (const opts of [{ fieldName: 'v' }, { fieldName: 'v', sparse: true }, { fieldName: '_id', unique: true }]) {
    it(`builds the same tree as nedb's inserts (${JSON.stringify(opts)})`, () => {
      const slow = new Index(opts);
      slow.insert(docs);
      const fast = new Index(opts);
      bulkResetIndex(fast, docs);
      fast.tree.checkIsAVLT();
      expect(contents(fast)).toEqual(contents(slow));
      // nedb's own operations keep working on the bulk-built tree
      fast.insert({ _id: 'z', v: 3 }); slow.insert({ _id: 'z', v: 3 });
      (fast as any).remove(docs[0]); (slow as any).remove(docs[0]);
      fast.tree.checkIsAVLT();
      expect(contents(fast).map(([k, ids]) => [k, [...ids].sort()])).toEqual(contents(slow).map(([k, ids]) => [k, [...ids].sort()]));
    });
  }

  it('large random sets give a valid AVL tree with every document once', () => {
    const many = Array.from({ length: 5000 }, (_, i) => ({ _id: `id${(i * 7919) % 5000}`, v: i % 37 }));
    const index = new Index({ fieldName: '_id', unique: true });
    bulkResetIndex(index, many);
    index.tree.checkIsAVLT();
    expect(index.tree.getNumberOfKeys()).toBe(5000);
  });

  it('refuses duplicates on a unique index like nedb, leaving the index as it was', () => {
    const index = new Index({ fieldName: 'v', unique: true });
    bulkResetIndex(index, [{ _id: 'a', v: 1 }]);
    let err: any;
    try { bulkResetIndex(index, [{ _id: 'a', v: 1 }, { _id: 'b', v: 2 }, { _id: 'c', v: 1 }]); } catch (e) { err = e; }
    expect(err?.errorType).toBe('uniqueViolated');
    expect(err?.key).toBe(1);
    expect(contents(index)).toEqual([[1, ['a']]]);
  });
});

describe('datafile loading', () => {
  const lines = [
    { _id: 'a', n: 1, createdAt: '2024-01-01' },
    { _id: 'b', n: 2, when: { $$date: 1700000000000 }, createdAt: '2024-01-02' },
    { $$indexCreated: { fieldName: 'n', unique: false, sparse: false } },
    { _id: 'a', n: 10, createdAt: '2024-01-01' },
    { _id: 'c', n: 3, createdAt: '2024-01-03' },
    { _id: 'c', $$deleted: true },
    { $$indexCreated: { fieldName: 'gone', unique: false, sparse: false } },
    { $$indexRemoved: 'gone' },
    { _id: 'd', n: 4, createdAt: '2024-01-04' },
  ].map((l) => JSON.stringify(l));

  it('reads what nedb reads, and compacts a file with superseded, deleted and removed lines', async () => {
    const dir = await tempDir();
    const file = join(dir, 'x.db');
    const raw = lines.join('\n') + '\n{"_id":"e","n":'; // a crash cut the last append short
    await writeFile(file, raw);
    await writeFile(join(dir, 'ref.db'), raw);
    const ref = await nedbLoad(join(dir, 'ref.db'));
    const store = await DocStore.open({ filename: file, compactEvery: 0 });
    expect(store.all()).toEqual(ref.getAllData());
    expect(store.get('b')?.when).toBeInstanceOf(Date);
    expect(store.hasIndex('n')).toBe(true);
    expect(store.hasIndex('gone')).toBe(false);
    expect(store.size).toBe(3);
    // nedb's compaction of the same content; the createdAt index DocStore adds is written with
    // the store's next write (a store only read writes nothing)
    expect(await readFile(file, 'utf8')).toBe(await readFile(join(dir, 'ref.db'), 'utf8'));
    await store.insert({ _id: 'z', n: 1 });
    expect((await readFile(file, 'utf8')).split('\n').slice(-3, -1)).toEqual([
      JSON.stringify({ $$indexCreated: { fieldName: 'createdAt', unique: false, sparse: false } }), JSON.stringify({ _id: 'z', n: 1 })]);
    await store.close();
  });

  it('leaves a compact file untouched, and appends after it', async () => {
    const dir = await tempDir();
    const file = join(dir, 'y.db');
    const compact = [
      JSON.stringify({ _id: 'a', n: 1, createdAt: '2024-01-01' }),
      JSON.stringify({ _id: 'b', n: 2, createdAt: '2024-01-02' }),
      JSON.stringify({ $$indexCreated: { fieldName: 'createdAt', unique: false, sparse: false } }),
    ].join('\n') + '\n';
    await writeFile(file, compact);
    const before = await stat(file);
    const store = await DocStore.open({ filename: file, compactEvery: 0 });
    expect((await stat(file)).ino).toBe(before.ino); // not replaced by a rewrite
    expect(await readFile(file, 'utf8')).toBe(compact);
    await store.insert({ _id: 'c', n: 3, createdAt: '2024-01-03' });
    const reopened = await nedbLoad(file);
    expect(reopened.getAllData().map((d: any) => d._id).sort()).toEqual(['a', 'b', 'c']);
    await store.drop();
  });

  it('recovers the previous content when a rewrite was cut off before its rename', async () => {
    const dir = await tempDir();
    const file = join(dir, 'z.db');
    await writeFile(`${file}~`, JSON.stringify({ _id: 'a', n: 1 }) + '\n');
    const store = await DocStore.open({ filename: file, compactEvery: 0 });
    expect(store.get('a')?.n).toBe(1);
    await store.drop();
  });

  it('refuses a mostly corrupt file like nedb', async () => {
    const dir = await tempDir();
    const file = join(dir, 'bad.db');
    await writeFile(file, ['{"_id":"a"}', 'garbage', 'more garbage', '{"_id":"b"}'].join('\n') + '\n');
    await expect(DocStore.open({ filename: file, compactEvery: 0 })).rejects.toThrow(/corrupt/);
    await rename(file, `${file}.kept`);
  });

  it('revives dates however their key is spelt, and counts the bytes of the file as it is', async () => {
    const dir = await tempDir();
    const file = join(dir, 'd.db');
    // A date key written with \\u escapes (nedb's reviver sees the unescaped key), a line with
    // none, and bytes that are not UTF-8 (decoding turns each into a 3-byte U+FFFD).
    const raw = Buffer.concat([
      Buffer.from('{"_id":"a","w":{"\\u0024\\u0024date":5},"createdAt":"2024-01-01"}\n{"_id":"b","name":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('","createdAt":"2024-01-02"}\n'),
    ]);
    await writeFile(file, raw);
    await writeFile(join(dir, 'ref.db'), raw);
    const parsed = await readDatafile(file);
    expect(parsed.bytes).toBe(raw.length); // appends are undone by cutting back to this length
    expect(parsed.needsRewrite).toBe(false);
    const ref = await nedbLoad(join(dir, 'ref.db'));
    expect(parsed.docs).toEqual(ref.getAllData());
    expect(parsed.docs[0].w).toEqual(new Date(5));
    expect(parsed.docs[1].name).toBe('\ufffd\ufffd');
  });

  it('keeps unique indexes from the file and rejects a file that breaks them', async () => {
    const dir = await tempDir();
    const file = join(dir, 'u.db');
    await writeFile(file, [
      JSON.stringify({ _id: 'a', email: 'x@y' }), JSON.stringify({ _id: 'b', email: 'x@y' }),
      JSON.stringify({ $$indexCreated: { fieldName: 'email', unique: true, sparse: true } }),
    ].join('\n') + '\n');
    await expect(DocStore.open({ filename: file, compactEvery: 0 })).rejects.toMatchObject({ errorType: 'uniqueViolated' });
  });
});
