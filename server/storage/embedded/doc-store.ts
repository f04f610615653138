// A document store: one nedb engine held in memory (documents and indexes, read through the
// query planner in query.ts) and, on disk, one append-only file written by datafile.ts.
//
// Guarantees (docs/storage-layout.md):
// - A write becomes visible only once it is durable: it is checked against the unique indexes,
//   appended to the file, and only then applied in memory. A write whose append fails is not
//   applied and leaves nothing in the file; it rejects with a storage error (errors.ts).
// - Writes to one store are applied one at a time, in the order they were called.
// - `exclusive(id, fn)` runs read-modify-write sections on one document one after another, so
//   that concurrent partial updates each see the previous one's result and none is lost.
import Datastore from 'nedb-promises';
import model from '@seald-io/nedb/lib/model.js';
import { rm } from 'node:fs/promises';
import { StoreUnavailableError, UniqueViolationError, UnstorableValueError } from './errors.js';
import { StorageFailure } from '../core/errors.js';
import type { AvlNode, NedbEngine, NedbIndex } from './nedb-types.js';
import { querySteps, runQuery, runSliced, type Doc, type QueryResult, type StoreQuery } from './query.js';
import { DataFile, compactText, readDatafile, serialize } from './datafile.js';
import { bulkResetIndex, cloneIndex } from './bulk-index.js';
import { KeyedSections } from './keyed-sections.js';
import { checkObject, patchArrayCount, patchBucketDelete, patchKeyCheck } from './nedb-patches.js';

export type { Doc, StoreQuery, QueryResult };

export interface IndexSpec { fieldName: string; unique?: boolean }

export interface DocStoreOptions {
  /** File path, or undefined for a memory-only store. */
  filename?: string;
  /** Periodic compaction (ms); 0 turns it off. */
  compactEvery?: number;
  /** Remember find() answers from this many documents on (default MEMO_FROM). */
  memoFrom?: number;
  /** Loading more documents than this, non-unique single-field indexes are built after the
   *  load, one per event-loop turn, instead of before the store opens (default DEFER_INDEXES_ABOVE). */
  deferIndexesAbove?: number;
}

/** A collection of 100,000 records answered its first request half a second later for its five
 *  index builds; below this size they take a few ms and are built at once. */
export const DEFER_INDEXES_ABOVE = 20_000;

/** Stores with at least this many documents remember list answers (find) until their next
 *  change; below it a query costs less than the memo's key. */
export const MEMO_FROM = 5_000;
const MEMO_MAX = 64;

/** A change prepared against the store but not yet applied: its file content and how to apply
 *  it in memory. Swaps (state.ts) write several stores' changes through a journal first. */
export interface StagedChange {
  store: DocStore;
  /** Lines to append to the store's file, or the whole new file (`rewrite`). */
  text: string;
  rewrite: boolean;
  /** Applies the change in memory (call once the file holds it; cannot fail). */
  apply(): void;
}

const DEFAULT_COMPACT_MS = 10 * 60 * 1000;
/** Compact early once the file holds this many superseded lines beyond the live documents. */
const COMPACT_AFTER_WRITES = 20_000;
/** ... or once it has grown by this much plus its size after the last compaction (large
 *  documents, such as webhook deliveries, rewritten a few times). */
const COMPACT_AFTER_GROWTH = 8 * 1024 * 1024;

type IndexClass = new (spec: { fieldName: string; unique?: boolean; sparse?: boolean }) => NedbIndex & {
  insert(doc: unknown): void; remove(doc: unknown): void; update(a: unknown, b: unknown): void; revertUpdate(a: unknown, b: unknown): void;
};

export class DocStore {
  private readonly engine: NedbEngine;
  private readonly file: DataFile | undefined;
  private count = 0;
  private writesSinceCompaction = 0;
  private compactedBytes = 0;
  /** Index lines not yet in the file: written before the first appended document. */
  private header = '';
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  /** Tail of the store's write queue. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The batch of single-document writes waiting in the queue, which new ones join (batched). */
  private batch: BatchedWrite[] | undefined;
  /** Per-document read-modify-write sections (exclusive). */
  private readonly sections = new KeyedSections();
  /** Changes with every change of the content: before a write starts, after it ends, and when
   *  a staged change is applied (so an answer worked out while a write was under way is never
   *  reused after it). */
  private generation = 0;
  /** find() answers by query, valid while `generation` is theirs. */
  private readonly memo = new Map<string, { generation: number; result: QueryResult; window?: NonNullable<StoreQuery["window"]>["result"] }>();
  private memoFrom = MEMO_FROM;
  /** Indexes read from the file but not built yet, by key. Until built, the planner does not see
   *  them (queries scan) and writes need not maintain them; each is built from the documents of
   *  the moment and registered in one synchronous step, so none misses a write. */
  private readonly deferred = new Map<string, NedbIndex>();
  /** A big store's `_id` tree is built the turn after its load, too: until then `get` reads the
   *  loader's map, queries scan the loaded documents (the planner does not see the unbuilt
   *  index), and anything else (every write, `all`) builds it first. */
  private loaded: { byId: Map<unknown, Doc>; docs: Doc[]; index: NedbIndex } | undefined;
  private readonly Index: IndexClass;

  private constructor(readonly filename: string | undefined, bytes: number) {
    const ds = Datastore.create({ inMemoryOnly: true }) as unknown as { __original: NedbEngine };
    this.engine = ds.__original;
    patchKeyCheck();
    patchBucketDelete(this.engine.indexes._id);
    patchArrayCount(this.engine.indexes._id);
    this.Index = this.engine.indexes._id.constructor as IndexClass;
    this.file = filename ? new DataFile(filename, bytes) : undefined;
    this.compactedBytes = bytes;
  }

  /** Opens (and, on disk, loads: datafile.ts, compacting only when the file needs it) a store.
   *  Every store keeps an ordered index on `createdAt`, the default order of lists. Nothing is
   *  kept alive when the load fails (no timer runs before it succeeds). */
  static async open(options: DocStoreOptions = {}): Promise<DocStore> {
    const parsed = options.filename ? await readDatafile(options.filename) : undefined;
    const store = new DocStore(options.filename, parsed?.bytes ?? 0);
    store.memoFrom = options.memoFrom ?? MEMO_FROM;
    await (store.engine as unknown as { loadDatabaseAsync(): Promise<void> }).loadDatabaseAsync(); // memory only: marks it ready
    if (parsed) {
      const Index = store.IndexClass;
      // A big file that needs no rewrite opens with only `_id` and its unique indexes built
      // (they guard writes); the others follow, one per turn (scheduleDeferredBuild).
      const defer = !parsed.needsRewrite && parsed.docs.length > (options.deferIndexesAbove ?? DEFER_INDEXES_ABOVE);
      for (const spec of parsed.specs) {
        const index = new Index(spec);
        if (defer && !spec.unique && typeof spec.fieldName === 'string' && !spec.fieldName.includes(',')) store.deferred.set(spec.fieldName, index);
        else store.engine.indexes[spec.fieldName] = index;
      }
      if (defer) store.deferIdIndex(parsed.byId as Map<unknown, Doc>, parsed.docs as Doc[]);
      for (const index of Object.values(store.engine.indexes)) bulkResetIndex(index, parsed.docs);
      store.count = parsed.docs.length;
      // A file with superseded or damaged lines is rewritten; if the disk refuses, the store
      // still loads (reads work) and the rewrite waits for the next compaction.
      if (parsed.needsRewrite) await store.compactNow().catch(() => undefined);
    }
    if (!store.engine.indexes.createdAt && !store.deferred.has('createdAt')) {
      // Built now, written with the store's first write (a store only read leaves no file).
      const options = { fieldName: 'createdAt', unique: false, sparse: false };
      const index = new store.IndexClass(options);
      bulkResetIndex(index, store.engine.getAllData());
      store.engine.indexes.createdAt = index;
      if (store.file) store.header = serialize({ $$indexCreated: options }) + '\n';
    }
    store.startCompactionTimer(options.compactEvery);
    if (store.deferred.size || store.loaded) store.scheduleDeferredBuild();
    return store;
  }

  /** What a copy of this store needs, taken in one synchronous step (one moment of the store):
   *  its documents (shared, not copied: stored documents are never mutated, every write puts a
   *  new one), its index specs, and the index lines not yet in its file. */
  copySource(): { docs: Doc[]; specs: Array<{ fieldName: string; unique: boolean; sparse: boolean }>; header: string; indexes?: Map<string, NedbIndex> } {
    const docs = this.all().slice();
    this.buildDeferredIndexes();
    // Copies of the indexes, node by node, made now: in the same step as the documents.
    const indexes = new Map<string, NedbIndex>();
    for (const [key, index] of Object.entries(this.engine.indexes)) {
      const copy = new this.IndexClass({ fieldName: index.fieldName, unique: index.unique, sparse: index.sparse });
      cloneIndex(copy, index);
      indexes.set(key, copy);
    }
    return { docs, specs: this.indexSpecs(), header: this.header, indexes };
  }

  /** A store holding `source` (copySource) without reading a file: its indexes those copied
   *  with the source, or built over the shared documents. `filename`: the copy's file, already holding `bytes` bytes of the same
   *  content (a copy of the source's file), or undefined in memory. A fork of a workspace opens
   *  its stores this way instead of loading their files again. */
  static async fromCopy(source: ReturnType<DocStore['copySource']>, options: { filename?: string; bytes?: number; compactEvery?: number } = {}): Promise<DocStore> {
    const store = new DocStore(options.filename, options.bytes ?? 0);
    await (store.engine as unknown as { loadDatabaseAsync(): Promise<void> }).loadDatabaseAsync();
    for (const spec of source.specs) store.engine.indexes[spec.fieldName] = new store.IndexClass(spec);
    for (const [key, index] of Object.entries(store.engine.indexes)) {
      const copied = source.indexes?.get(key);
      if (copied) store.engine.indexes[key] = copied; else bulkResetIndex(index, source.docs);
    }
    store.count = source.docs.length;
    store.header = options.filename ? source.header : '';
    store.startCompactionTimer(options.compactEvery);
    return store;
  }

  private startCompactionTimer(compactEvery: number | undefined): void {
    const every = compactEvery ?? DEFAULT_COMPACT_MS;
    if (this.filename && every > 0) {
      this.timer = setInterval(() => { if (this.writesSinceCompaction > 0) void this.compact().catch(() => undefined); }, every);
      this.timer.unref();
    }
  }

  /** Leaves the `_id` tree unbuilt (see `loaded`): taken out of the engine's indexes, and the
   *  engine's document list answered from the load. */
  private deferIdIndex(byId: Map<unknown, Doc>, docs: Doc[]): void {
    this.loaded = { byId, docs, index: this.engine.indexes._id };
    delete (this.engine.indexes as Partial<Record<string, NedbIndex>>)._id;
    this.engine.getAllData = () => docs;
  }

  /** Builds the `_id` tree if it was left for later, and puts it back first among the indexes
   *  (where nedb keeps it). Synchronous: no write can come in between. */
  private buildIdIndex(): void {
    const loaded = this.loaded;
    if (!loaded) return;
    this.loaded = undefined;
    bulkResetIndex(loaded.index, loaded.docs);
    delete (this.engine as Partial<NedbEngine>).getAllData;
    const others = { ...this.engine.indexes };
    for (const key of Object.keys(others)) delete this.engine.indexes[key];
    Object.assign(this.engine.indexes, { _id: loaded.index }, others);
    this.changed(); // lists without a sort come in id order from now on
  }

  /** Builds deferred indexes over the current documents and registers them: the first one
   *  waiting, or all. Synchronous, so no write comes between the build and the registration. */
  buildDeferredIndexes(one = false): void {
    for (const [key, index] of this.deferred) {
      this.deferred.delete(key);
      bulkResetIndex(index, this.engine.getAllData());
      this.engine.indexes[key] = index;
      if (one) return;
    }
  }

  /** Deferred indexes are built after the turn that opened the store (its first request is
   *  answered first), one per turn, so that requests get through in between. */
  private scheduleDeferredBuild(): void {
    const step = () => {
      if (this.closed) return;
      if (this.loaded) this.buildIdIndex();
      else this.buildDeferredIndexes(true);
      if (this.loaded || this.deferred.size) setImmediate(step).unref();
    };
    setImmediate(step).unref();
  }

  /** Keys of the indexes not built yet, `_id` first when it is one of them (tests). */
  get deferredIndexes(): string[] { return [...(this.loaded ? ['_id'] : []), ...this.deferred.keys()]; }

  get size(): number { return this.count; }

  /** The stored document, not a copy: callers must not mutate it (stores replace, never mutate). */
  get(id: string): Doc | undefined {
    if (typeof id !== 'string') return undefined;
    if (this.loaded) return this.loaded.byId.get(id);
    // The `_id` tree walked without nedb's search (two generic comparisons per node, recursive):
    // for string keys nedb's order is `<` and its equality `===`, so this finds the same node.
    // A key of another type on the way (ids are strings; nedb would allow others) goes to nedb.
    const index = this.engine.indexes._id;
    let node: AvlNode | null | undefined = index.tree.tree;
    if (!Object.prototype.hasOwnProperty.call(node, 'key')) return undefined; // empty tree
    while (node) {
      const key: unknown = node.key;
      if (typeof key !== 'string') return index.getMatching(id)[0] as Doc | undefined;
      if (id === key) return node.data[0] as Doc | undefined;
      node = id < key ? node.left : node.right;
    }
    return undefined;
  }

  /** Every document, in id order; read-only. */
  all(): Doc[] { this.buildIdIndex(); return this.engine.getAllData() as Doc[]; }

  /** Documents whose indexed or plain field equals a value (uses an index when there is one). */
  findBy(path: string, value: unknown): Doc[] {
    return runQuery(this.engine, this.count, {
      conditions: [{ path, op: '$eq', values: [value] }], sort: [], limit: Number.MAX_SAFE_INTEGER, offset: 0,
    }).data;
  }

  /** A page of matches and their count, worked out at once. On a big store the answer is
   *  remembered until the store next changes: the same list asked again (a page polled, the
   *  benchmark's repeated query) costs a lookup. Stored documents are never mutated, so a
   *  remembered page is what the query would find again; each caller gets its own copy of the
   *  array. */
  find(query: StoreQuery): QueryResult {
    return this.findWith(query, (q) => runQuery(this.engine, this.count, q)) as QueryResult;
  }

  /** `find` for requests: a query that takes longer than a slice of the event loop goes on in
   *  later turns (runSliced) and answers through a promise, so that no list holds the server. */
  findSliced(query: StoreQuery): QueryResult | Promise<QueryResult> {
    return this.findWith(query, (q) => runSliced(this.querySteps(q)));
  }

  /** The query as steps to run (query.ts: querySteps), unremembered. */
  querySteps(query: StoreQuery): ReturnType<typeof querySteps> {
    const started = this.generation;
    return querySteps(this.engine, this.count, query, { changed: () => this.generation !== started, size: () => this.count });
  }

  private findWith(query: StoreQuery, run: (q: StoreQuery) => QueryResult | Promise<QueryResult>): QueryResult | Promise<QueryResult> {
    if (this.count < this.memoFrom) return run(query);
    const key = JSON.stringify(query);
    const hit = this.memo.get(key);
    if (hit && hit.generation === this.generation) {
      if (query.window) query.window.result = hit.window;
      return { data: hit.result.data.slice(), total: hit.result.total };
    }
    const generation = this.generation;
    const remember = (result: QueryResult) => {
      // An answer worked out over several turns is remembered only if nothing changed meanwhile.
      if (generation === this.generation) {
        if (this.memo.size >= MEMO_MAX) this.memo.clear();
        this.memo.set(key, { generation, result: { data: result.data.slice(), total: result.total }, window: query.window?.result });
      }
      return result;
    };
    const result = run(query);
    return result instanceof Promise ? result.then(remember) : remember(result);
  }

  /** Forgets remembered answers (every change of the content calls it). */
  private changed(): void {
    this.generation++;
    if (this.memo.size) this.memo.clear();
  }

  /** Runs `fn` alone among the sections of the same document `id`: a read-modify-write (read
   *  the document, validate, write its next version) never interleaves with another on that
   *  document, so concurrent partial updates apply one after another. Reads elsewhere go on. */
  exclusive<T>(id: string, fn: () => Promise<T> | T): Promise<T> {
    return this.sections.run(id, fn);
  }


  /** Reads document `id`, computes its next version with `change` (undefined: leave it) and
   *  writes it, all within `exclusive(id)`. Resolves to the stored result (or undefined if the
   *  document is missing or unchanged by `change`). */
  async update(id: string, change: (current: Doc) => Doc | undefined | Promise<Doc | undefined>): Promise<Doc | undefined> {
    return this.exclusive(id, async () => {
      const current = this.get(id);
      if (!current) return undefined;
      const next = await change(current);
      return next ? this.replace(id, next) : undefined;
    });
  }

  async insert(doc: Doc): Promise<Doc> {
    return this.batched((batch) => {
      const prepared = this.prepare(doc);
      if (batch.get(prepared._id)) throw uniqueViolated(prepared._id);
      // A trial insert checks the unique indexes too (nedb takes it back when one refuses).
      if (batch.trial) this.engine._addToIndexes(prepared);
      else this.tryInsert([prepared]);
      batch.set(prepared._id, prepared);
      return {
        text: serialize(prepared) + '\n',
        undo: () => this.engine._removeFromIndexes(prepared),
        apply: () => { this.engine._addToIndexes(prepared); this.count++; },
        result: prepared,
      };
    });
  }

  async insertMany(docs: Doc[]): Promise<void> {
    if (docs.length === 0) return;
    await this.write(async () => {
      const prepared = docs.map((d) => this.prepare(d));
      const ids = new Set<string>();
      for (const p of prepared) { if (this.get(p._id) || ids.has(p._id)) throw uniqueViolated(p._id); ids.add(p._id); }
      this.tryInsert(prepared);
      await this.append(prepared.map((p) => serialize(p)).join('\n') + '\n');
      for (const p of prepared) this.engine._addToIndexes(p);
      this.count += prepared.length;
    });
  }

  /** Replaces a whole document; resolves to the stored one, or undefined if it is gone. */
  async replace(id: string, doc: Doc): Promise<Doc | undefined> {
    return this.batched((batch) => {
      const old = batch.get(id);
      if (!old) return { result: undefined };
      const next = this.prepare({ ...doc, _id: id });
      const pair = [{ oldDoc: old, newDoc: next }];
      if (batch.trial) this.engine._updateIndexes(pair);
      else this.tryUpdate(pair);
      batch.set(id, next);
      return {
        text: serialize(next) + '\n',
        undo: () => this.engine._updateIndexes([{ oldDoc: next, newDoc: old }]),
        apply: () => this.engine._updateIndexes(pair),
        result: next,
      };
    });
  }

  async remove(id: string): Promise<boolean> {
    return this.batched((batch) => {
      const old = batch.get(id);
      if (!old) return { result: false };
      if (batch.trial) this.engine._removeFromIndexes(old);
      batch.set(id, undefined);
      return {
        text: serialize({ $$deleted: true, _id: id }) + '\n',
        undo: () => this.engine._addToIndexes(old),
        apply: () => { this.engine._removeFromIndexes(old); this.count--; },
        result: true,
      };
    });
  }

  /** Removes every document matching a plain nedb query (ids, owners); resolves to the number removed. */
  async removeWhere(query: Record<string, unknown>): Promise<number> {
    return this.write(async () => {
      const match = (model as unknown as { match(d: unknown, q: unknown): boolean }).match;
      const gone = this.all().filter((d) => match(d, query));
      if (gone.length === 0) return 0;
      await this.append(gone.map((d) => serialize({ $$deleted: true, _id: d._id })).join('\n') + '\n');
      for (const d of gone) this.engine._removeFromIndexes(d);
      this.count -= gone.length;
      return gone.length;
    });
  }

  /** Swaps the whole content at once, in memory and on disk (a crash-safe rewrite). Indexes are
   *  rebuilt; a unique violation leaves the old content. */
  async replaceAll(docs: Doc[]): Promise<void> {
    await this.write(async () => {
      const staged = this.stageReplaceAll(docs);
      await this.file?.rewrite(staged.text);
      staged.apply();
    });
  }

  /** Prepares replacing the whole content with `docs` (indexes built aside: a unique violation
   *  throws here and changes nothing). Call inside `holdWrites`. */
  stageReplaceAll(docs: Doc[]): StagedChange {
    this.buildIdIndex();
    const copies = docs.map((d) => model.deepCopy(d));
    const fresh: Record<string, NedbIndex> = {};
    for (const [key, index] of [...Object.entries(this.engine.indexes), ...this.deferred]) {
      const built = new this.IndexClass({ fieldName: index.fieldName, unique: index.unique, sparse: index.sparse });
      bulkResetIndex(built, copies);
      fresh[key] = built;
    }
    return {
      store: this, rewrite: true, text: this.file ? compactText(copies, this.indexSpecs()) : '',
      apply: () => {
        this.changed();
        this.header = '';
        this.deferred.clear();
        for (const key of Object.keys(this.engine.indexes)) delete this.engine.indexes[key];
        Object.assign(this.engine.indexes, fresh);
        this.count = copies.length;
        this.writesSinceCompaction = 0;
      },
    };
  }

  /** Prepares a set of changes (documents to put, whole, and ids to delete) as lines to append;
   *  checked against the unique indexes (a violation throws here and changes nothing). Call
   *  inside `holdWrites`. */
  stageChanges(put: Doc[], deleted: string[]): StagedChange {
    this.buildIdIndex();
    const prepared = put.map((d) => this.prepare(d));
    const removed = deleted.map((id) => this.get(id)).filter((d): d is Doc => !!d);
    const pairs = prepared.map((p) => ({ oldDoc: this.get(p._id), newDoc: p }));
    const applyMemory = () => {
      for (const d of removed) this.engine._removeFromIndexes(d);
      for (const { oldDoc, newDoc } of pairs) {
        if (oldDoc) this.engine._updateIndexes([{ oldDoc, newDoc }]);
        else this.engine._addToIndexes(newDoc);
      }
    };
    const undoMemory = (upTo: number) => {
      for (let i = upTo - 1; i >= 0; i--) {
        const { oldDoc, newDoc } = pairs[i];
        if (oldDoc) this.engine._updateIndexes([{ oldDoc: newDoc, newDoc: oldDoc }]);
        else this.engine._removeFromIndexes(newDoc);
      }
      for (const d of removed) this.engine._addToIndexes(d);
    };
    // A trial run, undone in the same tick (no reader sees it): finds unique violations.
    for (const d of removed) this.engine._removeFromIndexes(d);
    let done = 0;
    try {
      for (const { oldDoc, newDoc } of pairs) {
        if (oldDoc) this.engine._updateIndexes([{ oldDoc, newDoc }]);
        else this.engine._addToIndexes(newDoc);
        done++;
      }
    } finally {
      undoMemory(done);
    }
    const lines = [...removed.map((d) => serialize({ $$deleted: true, _id: d._id })), ...prepared.map((p) => serialize(p))];
    return {
      store: this, rewrite: false, text: lines.length ? this.header + lines.join('\n') + '\n' : '',
      apply: () => {
        this.changed();
        if (lines.length) this.header = '';
        applyMemory();
        this.count += pairs.filter((p) => !p.oldDoc).length - removed.length;
        this.writesSinceCompaction += lines.length;
      },
    };
  }

  /** Runs `fn` with this store's write queue held: no other write starts until it settles. */
  holdWrites<T>(fn: () => Promise<T>): Promise<T> { return this.write(fn); }

  /** The file now holds `bytes` written by someone else (a swap's journal): keep appending after them. */
  fileReplaced(bytes: number): void { this.file?.reset(bytes); }

  /** Creates an index (a no-op when it exists); a unique index over duplicate values fails
   *  with 409 and is not created. */
  async ensureIndex(spec: IndexSpec): Promise<void> {
    // A compound index ("a,b") is keyed by its fields sorted and comma-joined (indexKey).
    const fields = spec.fieldName.split(',').sort();
    const key = fields.join(',');
    if (this.hasIndex(key)) return;
    await this.write(async () => {
      if (this.hasIndex(key)) return;
      // Unique indexes are sparse, so that many documents may lack the field.
      const options = { fieldName: key, unique: !!spec.unique, sparse: !!spec.unique };
      const index = new this.IndexClass(options);
      bulkResetIndex(index, this.all());
      await this.append(serialize({ $$indexCreated: options }) + '\n');
      this.engine.indexes[key] = index;
    });
  }

  async removeIndex(fieldName: string): Promise<void> {
    const key = indexKey(fieldName);
    if (key === '_id' || key === 'createdAt' || !this.hasIndex(key)) return;
    await this.write(async () => {
      if (!this.hasIndex(key)) return;
      await this.append(serialize({ $$indexRemoved: key }) + '\n');
      delete this.engine.indexes[key];
      this.deferred.delete(key); // an index removed before it was built stays unbuilt
    });
  }

  /** Built or still deferred. */
  hasIndex(fieldName: string): boolean { const key = indexKey(fieldName); return !!this.engine.indexes[key] || this.deferred.has(key); }

  /** The indexes besides `_id`, by key (compound: fields sorted and comma-joined), built or deferred. */
  listIndexes(): Array<{ fieldName: string; unique: boolean }> {
    return this.allIndexes().map((i) => ({ fieldName: i.fieldName, unique: i.unique }));
  }

  /** Rewrites the file with one line per live document (crash-safe). */
  async compact(): Promise<void> {
    if (!this.file || this.closed) return;
    await this.write(() => this.compactNow());
  }

  /** Waits for queued writes, compacts when the store was written since its last compaction,
   *  and stops the timer. Rejects (with a storage error) if the compaction fails: every write
   *  already acknowledged is in the file anyway; the store is closed either way. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.timer) clearInterval(this.timer);
    try {
      // Nothing appended since the load (or last compaction): the file is already compact, and
      // rewriting 100,000 records would only slow the shutdown.
      if (this.file && this.writesSinceCompaction > 0) await this.write(() => this.compactNow());
      else await this.queue;
    } finally {
      this.closed = true;
    }
  }

  /** Stops using the store without touching its file (a swap replaced or removed the file):
   *  waits for queued writes, stops the timer; later writes are refused. */
  async detach(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.queue;
    this.closed = true;
  }

  /** Closes the store and deletes its file. */
  async drop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.queue;
    this.closed = true;
    if (this.filename) await rm(this.filename, { force: true });
  }

  // ---- internals ---------------------------------------------------------------------------

  /** Appends lines to the file (with the header lines still owed, see `header`). */
  private async append(text: string): Promise<void> {
    if (!this.file) return;
    await this.file.append(this.header + text);
    this.header = '';
  }

  private get IndexClass(): IndexClass { return this.Index; }

  /** Every index but `_id`, built or deferred: what the file must list. */
  private allIndexes(): NedbIndex[] {
    return [...Object.values(this.engine.indexes), ...this.deferred.values()].filter((i) => i.fieldName !== '_id');
  }

  private indexSpecs() {
    return this.allIndexes()
      .map((i) => ({ fieldName: i.fieldName, unique: i.unique, sparse: i.sparse }));
  }

  private async compactNow(): Promise<void> {
    if (!this.file) return;
    await this.file.rewrite(compactText(this.all(), this.indexSpecs()));
    this.header = '';
    this.writesSinceCompaction = 0;
    this.compactedBytes = this.file.bytes;
  }

  /** A copy of `doc` as it will be stored: an id, nedb's key rules. */
  private prepare(doc: Doc): Doc & { _id: string } {
    const copy = model.deepCopy(doc) as Doc;
    if (copy._id === undefined) throw new Error('a document needs an _id');
    checkObject(copy);
    return copy as Doc & { _id: string };
  }

  /** Would these documents fit the unique indexes? Checked by inserting them and taking them
   *  out again in the same tick (no reader sees it); throws nedb's uniqueViolated error. */
  private tryInsert(docs: Doc[]): void {
    const unique = Object.entries(this.engine.indexes).filter(([k, i]) => i.unique && k !== '_id');
    if (unique.length === 0 && docs.length === 1) return;
    let added = 0;
    try {
      for (const d of docs) { this.engine._addToIndexes(d); added++; }
    } finally {
      for (let i = 0; i < added; i++) this.engine._removeFromIndexes(docs[i]);
    }
  }

  private tryUpdate(pairs: Array<{ oldDoc: Doc; newDoc: Doc }>): void {
    const unique = Object.entries(this.engine.indexes).filter(([k, i]) => i.unique && k !== '_id');
    if (unique.length === 0) return;
    for (const [, index] of unique) {
      const i = index as unknown as { update(a: unknown, b: unknown): void; revertUpdate(a: unknown, b: unknown): void };
      for (const { oldDoc, newDoc } of pairs) { i.update(oldDoc, newDoc); i.revertUpdate(oldDoc, newDoc); }
    }
  }

  /** Runs a write alone in the store's queue; nedb's errors become API errors. Writes asked
   *  for after it never join a batch queued before it. */
  private write<T>(op: () => Promise<T>): Promise<T> {
    this.batch = undefined;
    return this.enqueue(op);
  }

  /** Group commit of single-document writes (insert, replace, remove). Writes that arrive while
   *  the queue is busy (another batch's append under way) wait in one batch; at its turn the
   *  batch is checked in one synchronous step, each write against the store as the writes
   *  before it in the batch leave it (applied for the check and taken back in the same tick,
   *  so no reader sees them), then its lines are appended in one write, and only once that
   *  succeeded is each applied in memory and answered, in order. A write refused by the check
   *  fails alone; a failed append fails every write of the batch and applies none. Each write
   *  is answered only after its own line is in the file, as before (docs/storage-layout.md). */
  private batched<T>(stage: (batch: BatchView) => StagedWrite<T>): Promise<T> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('The store is closed'));
    let batch = this.batch;
    if (!batch) {
      const mine: BatchedWrite[] = [];
      batch = this.batch = mine;
      void this.enqueue(() => {
        if (this.batch === mine) this.batch = undefined; // later writes form the next batch
        return this.commit(mine);
      }).catch((err) => { for (const w of mine) w.reject(err); });
    }
    return new Promise<T>((resolve, reject) => {
      batch.push({ stage: stage as (batch: BatchView) => StagedWrite<unknown>, resolve: resolve as (v: unknown) => void, reject });
    });
  }

  private async commit(batch: BatchedWrite[]): Promise<void> {
    const staged: Array<{ w: BatchedWrite; s: StagedWrite<unknown> }> = [];
    const trialled: Array<() => void> = [];
    // The documents as the writes before in the batch leave them (undefined: removed). With
    // unique indexes besides _id, the writes before are also applied to the indexes (a trial,
    // taken back below), so that each write is checked against them; the last needs only the
    // check.
    const pending = new Map<string, Doc | undefined>();
    const unique = Object.entries(this.engine.indexes).some(([k, i]) => i.unique && k !== '_id');
    const view: BatchView = {
      trial: false,
      get: (id) => (pending.has(id) ? pending.get(id) : this.get(id)),
      set: (id, doc) => { pending.set(id, doc); },
    };
    try {
      for (let i = 0; i < batch.length; i++) {
        const w = batch[i];
        view.trial = unique && i < batch.length - 1;
        try {
          const s = w.stage(view);
          staged.push({ w, s });
          if (view.trial && s.undo) trialled.push(s.undo);
        } catch (err) {
          w.reject(translateNedbError(err));
        }
      }
    } finally {
      for (let i = trialled.length - 1; i >= 0; i--) trialled[i]();
    }
    const text = staged.map(({ s }) => s.text ?? '').join('');
    if (text) {
      try {
        await this.append(text);
      } catch (err) {
        for (const { w } of staged) w.reject(err);
        return;
      }
    }
    for (const { s } of staged) s.apply?.();
    const lines = staged.filter(({ s }) => s.text).length;
    if (lines > 1) this.writesSinceCompaction += lines - 1; // the queue counted one
    for (const { w, s } of staged) w.resolve(s.result);
  }

  private enqueue<T>(op: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('The store is closed'));
    const run = async () => {
      this.buildIdIndex(); // every write maintains the _id tree
      this.changed();
      try {
        const result = await op();
        if (this.file && (++this.writesSinceCompaction > Math.max(COMPACT_AFTER_WRITES, this.count)
          || this.file.bytes > 2 * this.compactedBytes + COMPACT_AFTER_GROWTH)) {
          this.writesSinceCompaction = 0;
          // Queued behind this write; a failure is retried by the next trigger or the timer.
          void this.write(() => this.compactNow()).catch(() => { this.writesSinceCompaction = COMPACT_AFTER_WRITES / 2; });
        }
        return result;
      } catch (err) {
        throw translateNedbError(err);
      } finally {
        this.changed();
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }
}

/** One single-document write of a batch, worked out at its turn: the line to append, how to
 *  take back its trial application, how to apply it once the line is written, its answer.
 *  Without `text` it writes nothing (the document was gone). */
interface StagedWrite<T> {
  text?: string;
  undo?: () => void;
  apply?: () => void;
  result: T;
}

/** What a batched write sees of the writes before it in its batch. */
interface BatchView {
  /** Apply the write to the indexes for the next writes' checks (taken back with `undo`). */
  trial: boolean;
  get(id: string): Doc | undefined;
  set(id: string, doc: Doc | undefined): void;
}

interface BatchedWrite {
  stage(batch: BatchView): StagedWrite<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/** nedb's key of an index: its fields sorted and comma-joined. */
export function indexKey(fieldName: string): string {
  return fieldName.includes(',') ? fieldName.split(',').sort().join(',') : fieldName;
}

function uniqueViolated(key: unknown): Error {
  return Object.assign(new Error(`Can't insert key ${String(key)}, it violates the unique constraint`), { errorType: 'uniqueViolated', key });
}

export function translateNedbError(err: unknown): unknown {
  if (err instanceof StorageFailure) return err;
  const e = err as { errorType?: string; key?: unknown; message?: string };
  if (e?.errorType === 'uniqueViolated') {
    return new UniqueViolationError('A unique constraint was violated', { value: e.key as string });
  }
  if (typeof e?.message === 'string' && /Field names cannot (begin with the \$ character|contain a \.)/.test(e.message)) {
    return new UnstorableValueError('', 'format', 'Field names may not start with $ or contain a dot');
  }
  return err;
}
