// A document store: one nedb engine held in memory (documents and indexes, read through the
// query planner in planner.ts) and, on disk, one append-only file written by datafile.ts.
// DocStore adds loading, copying and the writes themselves to its layers: indexes.ts (state
// and indexes), reads.ts, group-commit.ts (write queue and compaction), staging.ts.
//
// Guarantees (docs/storage-layout.md):
// - A write becomes visible only once it is durable: it is checked against the unique indexes,
//   appended to the file, and only then applied in memory. A write whose append fails is not
//   applied and leaves nothing in the file; it rejects with a storage error (errors.ts).
// - Writes to one store are applied one at a time, in the order they were called.
// - `exclusive(id, fn)` runs read-modify-write sections on one document one after another, so
//   that concurrent partial updates each see the previous one's result and none is lost.
import model from '@seald-io/nedb/lib/model.js';
import type { NedbIndex } from './nedb-types.js';
import type { Doc, QueryResult, StoreQuery } from '../query.js';
import { readDatafile, serialize } from './datafile.js';
import { bulkResetIndex } from './bulk-index.js';
import { indexKey, type IndexSpec } from '../store.js';
import { MEMO_FROM } from './indexes.js';
import { uniqueViolated } from './group-commit.js';
import { StagingStore } from './staging.js';
import { eventLine } from './kept-events.js';
import type { BusEvent } from '../../core/bus.js';

export type { Doc, StoreQuery, QueryResult, IndexSpec };
export { MEMO_FROM };
export { translateNedbError } from './group-commit.js';
export type { StagedChange } from './staging.js';

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
  /** Keep sort orders of unindexed fields from this store size and candidate count on
   *  (sort-orders.ts; default ORDER_FROM and ORDER_FROM_CANDIDATES). */
  sortOrdersFrom?: number;
}

/** What DocStore.fromCopy opens a store from: another store's indexes (copySource), or
 *  documents to index (a snapshot's). */
export interface CopySource {
  specs: Array<{ fieldName: string; unique?: boolean; sparse?: boolean }>;
  /** Index lines owed to the file (see IndexedStore.header). */
  header: string;
  /** The source store's indexes by key, `_id` first, shared with it. */
  indexes?: ReadonlyMap<string, NedbIndex>;
  /** With `indexes`: how many documents they hold. */
  count?: number;
  /** Without `indexes`: the documents (never mutated later). */
  docs?: Doc[];
}

/** A collection of 100,000 records answered its first request half a second later for its five
 *  index builds; below this size they take a few ms and are built at once. */
export const DEFER_INDEXES_ABOVE = 20_000;

export class DocStore extends StagingStore {
  private constructor(filename: string | undefined, bytes: number) { super(filename, bytes); }

  /** Opens (and, on disk, loads: datafile.ts, compacting only when the file needs it) a store.
   *  Every store keeps an ordered index on `createdAt`, the default order of lists. Nothing is
   *  kept alive when the load fails (no timer runs before it succeeds). */
  static async open(options: DocStoreOptions = {}): Promise<DocStore> {
    const parsed = options.filename ? await readDatafile(options.filename) : undefined;
    const store = new DocStore(options.filename, parsed?.bytes ?? 0);
    if (parsed && parsed.links > 1) store.file?.markLinked(); // shared with a fork or its source
    store.memoFrom = options.memoFrom ?? MEMO_FROM;
    store.orders.from = options.sortOrdersFrom;
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
      // Events a previous run kept with their writes and never settled (kept-events.ts).
      for (const [id, event] of parsed.events) store.pendingEvents.set(id, event as unknown as BusEvent);
      store.loadedEvents = [...store.pendingEvents.values()];
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
   *  its indexes themselves, shared (no copy is made: both stores read the same trees until one
   *  of them writes, which first copies the indexes for itself: ownIndexes), its index specs,
   *  its document count and the index lines not yet in its file. Stored documents are shared
   *  too: they are never mutated, every write puts a new one. */
  copySource(): CopySource {
    this.buildIdIndex();
    this.buildDeferredIndexes();
    this.sharedIndexes = true;
    return { count: this.count, specs: this.indexSpecs(), header: this.header, indexes: new Map(Object.entries(this.engine.indexes)) };
  }

  /** The store's file got a second name (a fork's store file linked to it): before its next
   *  append it is made this store's own (datafile.ts, ownFile), so the fork's stays as it is. */
  fileLinked(): void { this.file?.markLinked(); }

  /** A store holding `source` (copySource, or documents and specs) without reading a file: its
   *  indexes those shared with the source (copied on the first write to either), or built over
   *  the given documents. `filename`: the copy's file, already holding `bytes` bytes of the
   *  same content (`linked`: a hard link of the source's file, see fileLinked), or undefined in
   *  memory. A fork of a workspace opens its stores this way
   *  instead of loading their files again. */
  static async fromCopy(source: CopySource, options: { filename?: string; bytes?: number; compactEvery?: number; linked?: boolean } = {}): Promise<DocStore> {
    const store = new DocStore(options.filename, options.bytes ?? 0);
    if (options.linked) store.file?.markLinked();
    await (store.engine as unknown as { loadDatabaseAsync(): Promise<void> }).loadDatabaseAsync();
    if (source.indexes) {
      // `_id` first, where nedb keeps it (the fresh engine's own is replaced in its place).
      for (const [key, index] of source.indexes) store.engine.indexes[key] = index;
      store.sharedIndexes = true;
      store.count = source.count ?? 0;
    } else {
      const docs = source.docs ?? [];
      for (const spec of source.specs) store.engine.indexes[spec.fieldName] = new store.IndexClass(spec);
      for (const index of Object.values(store.engine.indexes)) bulkResetIndex(index, docs);
      store.count = docs.length;
    }
    store.header = options.filename ? source.header : '';
    store.startCompactionTimer(options.compactEvery);
    return store;
  }

  /** Reads document `id`, computes its next version with `change` (undefined: leave it) and
   *  writes it, all within `exclusive(id)`. Resolves to the stored result (or undefined if the
   *  document is missing or unchanged by `change`). */
  async update(id: string, change: (current: Doc) => Doc | undefined | Promise<Doc | undefined>, eventOf?: (next: Doc) => BusEvent): Promise<Doc | undefined> {
    return this.exclusive(id, async () => {
      const current = this.get(id);
      if (!current) return undefined;
      const next = await change(current);
      if (!next) return undefined;
      const doc = { ...next, _id: id };
      return this.replace(id, doc, eventOf?.(doc));
    });
  }

  /** `event`, the event the write publishes: kept in the file with it when events are kept
   *  (kept-events.ts), and then marked `outboxed`. */
  insert(doc: Doc, event?: BusEvent): Promise<Doc> {
    return this.insertDoc(doc, event, false) as Promise<Doc>;
  }

  /** insert, unless a document with the same id is there: then nothing is written and it
   *  resolves to undefined (checked at the write's turn in the queue, so no section is needed
   *  to make the check and the insert one step). Other unique indexes refuse as insert's do. */
  insertNew(doc: Doc, event?: BusEvent): Promise<Doc | undefined> {
    return this.insertDoc(doc, event, true);
  }

  private async insertDoc(doc: Doc, event: BusEvent | undefined, ifNew: boolean): Promise<Doc | undefined> {
    const keep = this.keepsEvent(event);
    if (typeof keep !== 'boolean') await keep;
    const kept = keep === false ? undefined : event;
    return this.batched<Doc | undefined>((batch) => {
      const prepared = this.prepare(doc);
      if (batch.get(prepared._id)) {
        if (ifNew) return { result: undefined };
        throw uniqueViolated(prepared._id);
      }
      // A trial insert checks the unique indexes too (nedb takes it back when one refuses).
      if (batch.trial) this.engine._addToIndexes(prepared);
      else this.tryInsert([prepared]);
      batch.set(prepared._id, prepared);
      const line = kept ? eventLine(kept, doc) : '';
      return {
        text: serialize(prepared) + '\n' + line,
        eventChars: line.length,
        undo: () => this.engine._removeFromIndexes(prepared),
        apply: () => { this.engine._addToIndexes(prepared); this.count++; if (kept) this.eventKept(kept); },
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
  async replace(id: string, doc: Doc, event?: BusEvent): Promise<Doc | undefined> {
    const keep = this.keepsEvent(event);
    if (typeof keep !== 'boolean') await keep;
    const kept = keep === false ? undefined : event;
    return this.batched((batch) => {
      const old = batch.get(id);
      if (!old) return { result: undefined };
      const next = this.prepare({ ...doc, _id: id });
      const pair = [{ oldDoc: old, newDoc: next }];
      if (batch.trial) this.engine._updateIndexes(pair);
      else this.tryUpdate(pair);
      batch.set(id, next);
      const line = kept ? eventLine(kept, doc) : '';
      return {
        text: serialize(next) + '\n' + line,
        eventChars: line.length,
        undo: () => this.engine._updateIndexes([{ oldDoc: next, newDoc: old }]),
        apply: () => { this.engine._updateIndexes(pair); if (kept) this.eventKept(kept); },
        result: next,
      };
    });
  }

  async remove(id: string, event?: BusEvent): Promise<boolean> {
    const keep = this.keepsEvent(event);
    if (typeof keep !== 'boolean') await keep;
    const kept = keep === false ? undefined : event;
    return this.batched((batch) => {
      const old = batch.get(id);
      if (!old) return { result: false };
      if (batch.trial) this.engine._removeFromIndexes(old);
      batch.set(id, undefined);
      const line = kept ? eventLine(kept, undefined) : '';
      return {
        text: serialize({ $$deleted: true, _id: id }) + '\n' + line,
        eventChars: line.length,
        undo: () => this.engine._addToIndexes(old),
        apply: () => { this.engine._removeFromIndexes(old); this.count--; if (kept) this.eventKept(kept); },
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
}
