// The embedded store's state and its indexes: the nedb engine held in memory, its file, and
// the indexes built at once or deferred (a big store opens with only the indexes that guard
// writes; the others are built after its first request, one per event-loop turn). The layers
// of a DocStore build on this one: reads.ts, group-commit.ts, staging.ts, doc-store.ts.
import Datastore from 'nedb-promises';
import type { NedbEngine, NedbIndex } from './nedb-types.js';
import type { Doc, QueryResult, StoreQuery } from '../query.js';
import { DataFile } from './datafile.js';
import { bulkResetIndex, cloneIndex } from './bulk-index.js';
import { KeyedSections } from '../keyed-sections.js';
import { patchArrayCount, patchBucketDelete, patchKeyCheck } from './nedb-patches.js';
import { indexKey } from '../store.js';
import type { BatchedWrite } from './group-commit.js';
import { SortOrders } from './sort-orders.js';
import { allDocs } from './planner.js';
import { getPath } from '../doc-path.js';

/** Stores with at least this many documents remember list answers (find) until their next
 *  change; below it a query costs less than the memo's key. */
export const MEMO_FROM = 5_000;

export type IndexClass = new (spec: { fieldName: string; unique?: boolean; sparse?: boolean }) => NedbIndex & {
  insert(doc: unknown): void; remove(doc: unknown): void; update(a: unknown, b: unknown): void; revertUpdate(a: unknown, b: unknown): void;
};

export class IndexedStore {
  protected readonly engine: NedbEngine;
  protected readonly file: DataFile | undefined;
  protected count = 0;
  protected writesSinceCompaction = 0;
  protected compactedBytes = 0;
  /** Index lines not yet in the file: written before the first appended document. */
  protected header = '';
  protected closed = false;
  protected timer: NodeJS.Timeout | undefined;
  /** Tail of the store's write queue. */
  protected queue: Promise<unknown> = Promise.resolve();
  /** The batch of single-document writes waiting in the queue, which new ones join (batched). */
  protected batch: BatchedWrite[] | undefined;
  /** Per-document read-modify-write sections (exclusive). */
  protected readonly sections = new KeyedSections();
  /** Changes with every change of the content: before a write starts, after it ends, and when
   *  a staged change is applied (so an answer worked out while a write was under way is never
   *  reused after it). */
  protected generation = 0;
  /** find() answers by query, valid while `generation` is theirs. */
  protected readonly memo = new Map<string, { generation: number; result: QueryResult; window?: NonNullable<StoreQuery["window"]>["result"] }>();
  protected memoFrom = MEMO_FROM;
  /** Indexes read from the file but not built yet, by key. Until built, the planner does not see
   *  them (queries scan) and writes need not maintain them; each is built from the documents of
   *  the moment and registered in one synchronous step, so none misses a write. */
  protected readonly deferred = new Map<string, NedbIndex>();
  /** A big store's `_id` tree is built the turn after its load, too: until then `get` reads the
   *  loader's map, queries scan the loaded documents (the planner does not see the unbuilt
   *  index), and anything else (every write, `all`) builds it first. */
  protected loaded: { byId: Map<unknown, Doc>; docs: Doc[]; index: NedbIndex } | undefined;
  protected readonly Index: IndexClass;
  /** In-memory sort orders of unindexed fields that big lists sort on (sort-orders.ts), kept up
   *  to date from the engine's index maintenance. */
  protected readonly orders: SortOrders;
  /** The index objects in `engine.indexes` are shared with other stores (a fork and its source:
   *  copySource / fromCopy). A shared index is never changed again: the store that writes first
   *  copies its indexes for itself (ownIndexes) and changes its copies. */
  protected sharedIndexes = false;
  /** List queries under way over several event-loop turns (findSliced): a deferred build waits
   *  for those that were running when its turn came (scheduleDeferredBuild). */
  protected readonly slicedReads = new Set<Promise<unknown>>();

  protected constructor(readonly filename: string | undefined, bytes: number) {
    const ds = Datastore.create({ inMemoryOnly: true }) as unknown as { __original: NedbEngine };
    this.engine = ds.__original;
    patchKeyCheck();
    patchBucketDelete(this.engine.indexes._id);
    patchArrayCount(this.engine.indexes._id);
    this.Index = this.engine.indexes._id.constructor as IndexClass;
    this.orders = new SortOrders({ allDocs: () => allDocs(this.engine), getPath });
    this.orders.watch(this.engine);
    // Every change of the indexes in memory goes through these three engine methods (writes,
    // their trial runs and undoing them; tryUpdate is the one other path): indexes shared with
    // another store are copied before the first of them.
    const { _addToIndexes: add, _removeFromIndexes: remove, _updateIndexes: update } = this.engine;
    this.engine._addToIndexes = (doc) => { if (this.sharedIndexes) this.ownIndexes(); add(doc); };
    this.engine._removeFromIndexes = (doc) => { if (this.sharedIndexes) this.ownIndexes(); remove(doc); };
    this.engine._updateIndexes = (pairs) => { if (this.sharedIndexes) this.ownIndexes(); update(pairs); };
    this.file = filename ? new DataFile(filename, bytes) : undefined;
    this.compactedBytes = bytes;
  }

  /** Replaces indexes shared with other stores by copies of this store's own, node by node
   *  (cloneIndex: no key compared, the documents shared), before this store changes one. The
   *  shared ones stay as they are for the stores still reading them. Synchronous. */
  protected ownIndexes(): void {
    if (!this.sharedIndexes) return;
    this.sharedIndexes = false;
    for (const [key, index] of Object.entries(this.engine.indexes)) {
      const copy = new this.Index({ fieldName: index.fieldName, unique: index.unique, sparse: index.sparse });
      cloneIndex(copy, index);
      this.engine.indexes[key] = copy;
    }
  }

  /** Leaves the `_id` tree unbuilt (see `loaded`): taken out of the engine's indexes, and the
   *  engine's document list answered from the load. */
  protected deferIdIndex(byId: Map<unknown, Doc>, docs: Doc[]): void {
    this.loaded = { byId, docs, index: this.engine.indexes._id };
    delete (this.engine.indexes as Partial<Record<string, NedbIndex>>)._id;
    this.engine.getAllData = () => docs;
  }

  /** Builds the `_id` tree if it was left for later, and puts it back first among the indexes
   *  (where nedb keeps it). Synchronous: no write can come in between. */
  protected buildIdIndex(): void {
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

  /** Deferred indexes are built after the turn that opened the store, one per turn, so that
   *  requests get through in between. A list that goes on over several turns (the first page
   *  of a big store scans while its sort field's index is unbuilt) is answered first: a build
   *  whose turn comes while such lists are under way waits for those (and only those: lists
   *  started later do not hold it again), so the request that opened the store never waits for
   *  the builds (the `_id` tree of 100,000 records alone takes ~100 ms). */
  protected scheduleDeferredBuild(): void {
    const step = (waited: boolean) => {
      if (this.closed) return;
      if (!waited && this.slicedReads.size) {
        const next = () => { setImmediate(step, true).unref(); };
        Promise.allSettled([...this.slicedReads]).then(next, next);
        return;
      }
      if (this.loaded) this.buildIdIndex();
      else this.buildDeferredIndexes(true);
      if (this.loaded || this.deferred.size) setImmediate(step, false).unref();
    };
    setImmediate(step, false).unref();
  }

  /** Keys of the indexes not built yet, `_id` first when it is one of them (tests). */
  get deferredIndexes(): string[] { return [...(this.loaded ? ['_id'] : []), ...this.deferred.keys()]; }

  get size(): number { return this.count; }

  /** The sort orders kept (sort-orders.ts) and whether each is built (tests). */
  get sortOrders(): Array<{ path: string; ready: boolean }> { return this.orders.states; }

  /** Forgets remembered answers (every change of the content calls it). */
  protected changed(): void {
    this.generation++;
    if (this.memo.size) this.memo.clear();
  }

  /** Built or still deferred. */
  hasIndex(fieldName: string): boolean { const key = indexKey(fieldName); return !!this.engine.indexes[key] || this.deferred.has(key); }

  /** The indexes besides `_id`, by key (compound: fields sorted and comma-joined), built or deferred. */
  listIndexes(): Array<{ fieldName: string; unique: boolean }> {
    return this.allIndexes().map((i) => ({ fieldName: i.fieldName, unique: i.unique }));
  }

  protected get IndexClass(): IndexClass { return this.Index; }

  /** Every index but `_id`, built or deferred: what the file must list. */
  protected allIndexes(): NedbIndex[] {
    return [...Object.values(this.engine.indexes), ...this.deferred.values()].filter((i) => i.fieldName !== '_id');
  }

  protected indexSpecs() {
    return this.allIndexes()
      .map((i) => ({ fieldName: i.fieldName, unique: i.unique, sparse: i.sparse }));
  }
}
