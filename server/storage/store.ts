// The store interface both drivers implement: the embedded stores (DocStore over nedb, in this
// process's memory) and PostgreSQL (PgDocStore, a table per store). Everything is asynchronous,
// as the database is; the embedded driver answers at once. Modules use only this interface, so
// they do not know which driver is underneath.
import type { Condition, Doc, QueryResult, StoreQuery } from './query.js';
import type { BusEvent } from '../core/bus.js';

/** What a write may store with it. `event`: the event the write publishes, stored in the same
 *  transaction where the driver keeps an outbox (PostgreSQL: the write and its event are
 *  committed together, and a live process dispatches an event whose process died before it did;
 *  the driver sets `event.outboxed`). The embedded driver appends it to the store's file in the
 *  write's own append, once its server keeps events (embedded/kept-events.ts: published again
 *  at the next start when the process died before dispatching it), and sets `event.outboxed`
 *  too. The event is stored only when the write changed something. */
export interface WriteOptions { event?: BusEvent }

/** What an `update` may store with it: `event(next)`, the event of the change that writes
 *  `next` (as `WriteOptions.event`, made once the next version is known). */
export interface UpdateOptions { event?: (next: Doc) => BusEvent }

/** What a `patch` writes under: the owner the document must have, and its event. */
export interface PatchOptions { owner?: string; event?: BusEvent }

export interface IndexSpec { fieldName: string; unique?: boolean }

/** The key of an index: a compound index ("b,a") is keyed by its fields sorted and
 *  comma-joined ("a,b"), so that one index answers for both spellings. */
export function indexKey(fieldName: string): string {
  return fieldName.includes(',') ? fieldName.split(',').sort().join(',') : fieldName;
}

export interface Store {
  get(id: string): Promise<Doc | undefined>;
  /** `get` answered at once, on a driver that holds the documents in this process (the
   *  embedded one); absent where a read must wait for a database. The token check and the
   *  record GET use it to answer without waiting a turn (docs/performance.md). */
  getNow?(id: string): Doc | undefined;
  /** Reads document `id` here and one document of each of `others` (stores of the same
   *  database) in one round trip: resolves to [this one, ...others']. Absent where reads answer
   *  at once (the embedded driver); `getEach` picks it when it is there. */
  getWith?(id: string, others: Array<[Store, string]>): Promise<Array<Doc | undefined>>;
  find(query: StoreQuery): Promise<QueryResult>;
  /** Documents whose value at `path` equals `value` (as a filter[path]=value would, typed). */
  findBy(path: string, value: unknown): Promise<Doc[]>;
  /** Every document, in id order. */
  all(): Promise<Doc[]>;
  count(): Promise<number>;
  insert(doc: Doc, options?: WriteOptions): Promise<Doc>;
  /** Inserts `doc` unless a document with its id is there (resolves to undefined then), in one
   *  step that needs no `exclusive` section: where the driver has it (PostgreSQL: one statement
   *  instead of a lock, a read, the insert and an unlock; embedded: the id checked at the write's
   *  turn in the store's queue). Callers fall back to
   *  `exclusive(id)` + `get` + `insert` where it is absent. */
  insertNew?(doc: Doc, options?: WriteOptions): Promise<Doc | undefined>;
  insertMany(docs: Doc[]): Promise<void>;
  replace(id: string, doc: Doc, options?: WriteOptions): Promise<Doc | undefined>;
  remove(id: string, options?: WriteOptions): Promise<boolean>;
  /** Removes the documents matching every condition; resolves to how many. */
  removeWhere(conditions: Condition[]): Promise<number>;
  /** Swaps the whole content at once; a unique violation leaves the old content. */
  replaceAll(docs: Doc[]): Promise<void>;
  /** Runs `fn` alone among the sections on the same key (a document id, or a name such as
   *  `$admins`): a read-modify-write never interleaves with another on that key, in this
   *  process and, on PostgreSQL, across processes. */
  exclusive<T>(key: string, fn: () => Promise<T> | T): Promise<T>;
  /** Reads document `id`, computes its next version with `change` (undefined: leave it) and
   *  writes it, as one read-modify-write: every change made through here applies to the
   *  previous one's result. The embedded driver runs it within `exclusive(id)`; PostgreSQL
   *  writes only if the row is still the version read (else it reads again and calls `change`
   *  again: `change` may run more than once and must only compute). Resolves to the stored
   *  result, or undefined when the document is missing or `change` left it. */
  update(id: string, change: (current: Doc) => Doc | undefined | Promise<Doc | undefined>, options?: UpdateOptions): Promise<Doc | undefined>;
  /** Sets the top-level fields `fields` of document `id` (the others kept) in one step where
   *  the document lives, without reading it first: where the driver has it (PostgreSQL: one
   *  statement instead of a read and a conditional write). Only a document that exists and,
   *  when `owner` is given, whose `_owner` is `owner` is written; resolves to it as stored, or
   *  undefined when none was (nothing changed then). `event`: the change's event, stored with
   *  the write, its data the stored document. Concurrent patches apply one after the other. */
  patch?(id: string, fields: Record<string, unknown>, options?: PatchOptions): Promise<Doc | undefined>;
  ensureIndex(spec: IndexSpec): Promise<void>;
  removeIndex(fieldName: string): Promise<void>;
  listIndexes(): Promise<Array<{ fieldName: string; unique: boolean }>>;
  drop(): Promise<void>;
}

/** One document of each store, [store, id] pairs in, documents (or undefined) out in the same
 *  order: one round trip on PostgreSQL (the session check of every request reads its session
 *  and user this way), reads that answer at once on the embedded driver. */
export function getEach(reads: Array<[Store, string]>): Promise<Array<Doc | undefined>> {
  const [first, ...rest] = reads;
  if (first?.[0].getWith) return first[0].getWith(first[1], rest);
  return Promise.all(reads.map(([store, id]) => store.get(id)));
}

const indexed = new WeakMap<Store, Map<string, Promise<void>>>();

/** Makes sure a store carries these indexes (created once per store handle; later calls cost a
 *  lookup, not a round trip to the database). Resolves to the store. */
export async function withIndexes(store: Store, specs: IndexSpec[]): Promise<Store> {
  let done = indexed.get(store);
  if (!done) { done = new Map(); indexed.set(store, done); }
  for (const spec of specs) {
    const key = `${spec.fieldName}\u0000${spec.unique ? 1 : 0}`;
    let p = done.get(key);
    if (!p) {
      p = store.ensureIndex(spec);
      done.set(key, p);
      p.catch(() => { if (done!.get(key) === p) done!.delete(key); });
    }
    await p;
  }
  return store;
}
