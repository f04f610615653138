// A document store: one nedb-promises datastore (one append-only file, or memory only), with
// writes through nedb (durable once they resolve: appended to the file before the promise
// settles, so they survive kill -9) and reads through the query planner in query.ts.
import Datastore from 'nedb-promises';
import model from '@seald-io/nedb/lib/model.js';
import { rm } from 'node:fs/promises';
import { ApiError } from '../core/errors.js';
import type { NedbEngine, NedbIndex } from './nedb-types.js';
import { runQuery, type Doc, type QueryResult, type StoreQuery } from './query.js';
import { loadDatafile } from './datafile.js';
import { bulkResetIndex } from './bulk-index.js';
import { patchArrayCount, patchBucketDelete, patchKeyCheck } from './nedb-patches.js';

export type { Doc, StoreQuery, QueryResult };

export interface IndexSpec { fieldName: string; unique?: boolean }

export interface DocStoreOptions {
  /** File path, or undefined for a memory-only store. */
  filename?: string;
  /** Periodic compaction (ms); 0 turns it off. */
  compactEvery?: number;
}

const DEFAULT_COMPACT_MS = 10 * 60 * 1000;
/** Compact early once the file holds this many superseded lines beyond the live documents. */
const COMPACT_AFTER_WRITES = 20_000;

export class DocStore {
  private readonly ds: Datastore<Doc>;
  private readonly engine: NedbEngine;
  private count = 0;
  private writesSinceCompaction = 0;
  private closed = false;

  private constructor(readonly filename: string | undefined, options: DocStoreOptions) {
    this.ds = Datastore.create(filename ? { filename } : { inMemoryOnly: true }) as unknown as Datastore<Doc>;
    this.engine = (this.ds as unknown as { __original: NedbEngine }).__original;
    patchKeyCheck();
    patchBucketDelete(this.engine.indexes._id);
    patchArrayCount(this.engine.indexes._id);
    const every = options.compactEvery ?? DEFAULT_COMPACT_MS;
    if (filename && every > 0) this.engine.setAutocompactionInterval(every);
  }

  /** Opens (and, on disk, loads: datafile.ts, compacting only when the file needs it) a store.
   *  Every store keeps an ordered index on `createdAt`, the default order of lists. */
  static async open(options: DocStoreOptions = {}): Promise<DocStore> {
    const store = new DocStore(options.filename, options);
    if (options.filename) store.count = (await loadDatafile(store.engine, options.filename)).docs;
    else await store.ds.load();
    await store.ensureIndex({ fieldName: 'createdAt' });
    return store;
  }

  get size(): number { return this.count; }

  /** The stored document, not a copy: callers must not mutate it (nedb replaces, never mutates, on update). */
  get(id: string): Doc | undefined {
    if (typeof id !== 'string') return undefined;
    return this.engine.indexes._id.getMatching(id)[0] as Doc | undefined;
  }

  /** Every document, in id order; read-only. */
  all(): Doc[] { return this.engine.getAllData() as Doc[]; }

  /** Documents whose indexed or plain field equals a value (uses an index when there is one). */
  findBy(path: string, value: unknown): Doc[] {
    return runQuery(this.engine, this.count, {
      conditions: [{ path, op: '$eq', values: [value] }], sort: [], limit: Number.MAX_SAFE_INTEGER, offset: 0,
    }).data;
  }

  find(query: StoreQuery): QueryResult { return runQuery(this.engine, this.count, query); }

  async insert(doc: Doc): Promise<Doc> {
    const inserted = await this.write(() => this.engine.insertAsync(doc)) as Doc;
    this.count++;
    return this.get(inserted._id) ?? inserted;
  }

  async insertMany(docs: Doc[]): Promise<void> {
    if (docs.length === 0) return;
    await this.write(() => this.engine.insertAsync(docs));
    this.count += docs.length;
  }

  /** Replaces a whole document; resolves to the stored one, or undefined if it is gone. */
  async replace(id: string, doc: Doc): Promise<Doc | undefined> {
    const { numAffected } = await this.write(() => this.engine.updateAsync({ _id: id }, { ...doc, _id: id }, {}));
    return numAffected ? this.get(id) : undefined;
  }

  async remove(id: string): Promise<boolean> {
    const n = await this.write(() => this.engine.removeAsync({ _id: id }, {}));
    this.count -= n;
    return n > 0;
  }

  /** Removes every document matching a plain nedb query (ids, owners); resolves to the number removed. */
  async removeWhere(query: Record<string, unknown>): Promise<number> {
    const n = await this.write(() => this.engine.removeAsync(query, { multi: true }));
    this.count -= n;
    return n;
  }

  /** Swaps the whole content at once, in memory and on disk (a crash-safe rewrite): for
   *  restore, import and reset. Indexes are rebuilt; a unique violation leaves the old content. */
  async replaceAll(docs: Doc[]): Promise<void> {
    const copies = docs.map((d) => model.deepCopy(d));
    await this.engine.executor.pushAsync(async () => {
      const previous = this.engine.getAllData();
      try {
        this.engine._resetIndexes(copies);
      } catch (err) {
        this.engine._resetIndexes(previous);
        throw err;
      }
      await this.engine.persistence.persistCachedDatabaseAsync();
    }, true);
    this.count = copies.length;
    this.writesSinceCompaction = 0;
  }

  /** Creates an index (a no-op when it exists); a unique index over duplicate values fails
   *  with 409 and is not created. */
  async ensureIndex(spec: IndexSpec): Promise<void> {
    // A compound index ("a,b") must reach nedb as an array of fields; nedb keys it by the
    // fields sorted and comma-joined (see indexKey).
    const fields = spec.fieldName.split(',');
    const fieldName = fields.length > 1 ? fields : spec.fieldName;
    // Unique indexes are sparse, so that many documents may lack the field.
    const options = { fieldName, unique: !!spec.unique, sparse: !!spec.unique };
    if (typeof fieldName !== 'string') { await this.write(() => this.engine.ensureIndexAsync(options)); return; }
    if (this.engine.indexes[fieldName]) return;
    // A single field: built in bulk (bulk-index.ts) rather than by nedb's one-by-one inserts,
    // then persisted as nedb does, with an `$$indexCreated` line.
    await this.write(async () => {
      const IndexClass = this.engine.indexes._id.constructor as new (o: typeof options) => NedbIndex;
      const index = new IndexClass(options);
      bulkResetIndex(index, this.engine.getAllData());
      if (this.engine.indexes[fieldName]) return;
      this.engine.indexes[fieldName] = index;
      await this.engine.executor.pushAsync(() => this.engine.persistence.persistNewStateAsync([{ $$indexCreated: options }]), true);
    });
  }

  async removeIndex(fieldName: string): Promise<void> {
    const key = indexKey(fieldName);
    if (key === '_id' || key === 'createdAt') return;
    if (this.engine.indexes[key]) await this.engine.removeIndexAsync(key);
  }

  hasIndex(fieldName: string): boolean { return !!this.engine.indexes[indexKey(fieldName)]; }

  /** The indexes besides `_id`, by key (compound: fields sorted and comma-joined). */
  listIndexes(): Array<{ fieldName: string; unique: boolean }> {
    return Object.values(this.engine.indexes).filter((i) => i.fieldName !== '_id').map((i) => ({ fieldName: i.fieldName, unique: i.unique }));
  }

  async compact(): Promise<void> {
    if (!this.filename || this.closed) return;
    await this.engine.compactDatafileAsync();
    this.writesSinceCompaction = 0;
  }

  /** Waits for queued writes, compacts, and stops the timer. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.engine.stopAutocompaction();
    // Nothing appended since the load (or last compaction): the file is already compact, and
    // rewriting 100,000 records would only slow the shutdown. Otherwise wait for queued writes.
    if (this.writesSinceCompaction > 0) await this.compact();
    else await this.engine.executor.pushAsync(async () => undefined, true);
    this.closed = true;
  }

  /** Closes the store and deletes its file. */
  async drop(): Promise<void> {
    this.engine.stopAutocompaction();
    await this.engine.executor.pushAsync(async () => undefined, true);
    this.closed = true;
    if (this.filename) await rm(this.filename, { force: true });
  }

  private async write<T>(op: () => Promise<T>): Promise<T> {
    if (this.closed) throw ApiError.unavailable('The store is closed');
    try {
      const result = await op();
      if (this.filename && ++this.writesSinceCompaction > Math.max(COMPACT_AFTER_WRITES, this.count)) {
        this.writesSinceCompaction = 0;
        void this.engine.compactDatafileAsync().catch(() => undefined);
      }
      return result;
    } catch (err) {
      throw translateNedbError(err);
    }
  }
}

/** nedb's key of an index: its fields sorted and comma-joined. */
export function indexKey(fieldName: string): string {
  return fieldName.includes(',') ? fieldName.split(',').sort().join(',') : fieldName;
}

export function translateNedbError(err: unknown): unknown {
  const e = err as { errorType?: string; key?: unknown; message?: string };
  if (e?.errorType === 'uniqueViolated') {
    return ApiError.conflict('A unique constraint was violated', { value: e.key as string });
  }
  if (typeof e?.message === 'string' && /Field names cannot (begin with the \$ character|contain a \.)/.test(e.message)) {
    return ApiError.validation({ field: '', reason: 'format', message: 'Field names may not start with $ or contain a dot' });
  }
  return err;
}
