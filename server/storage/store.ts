// The store interface both drivers implement: the embedded stores (DocStore over nedb, in this
// process's memory) and PostgreSQL (PgDocStore, a table per store). Everything is asynchronous,
// as the database is; the embedded driver answers at once. Modules use only this interface, so
// they do not know which driver is underneath.
import type { Condition, Doc, QueryResult, StoreQuery } from './query.js';
import { translateNedbError, type DocStore, type IndexSpec } from './doc-store.js';
import { activeWriteGroup, type WriteGroup } from './write-group.js';
import { GroupHold } from './group-hold.js';

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
  insert(doc: Doc): Promise<Doc>;
  insertMany(docs: Doc[]): Promise<void>;
  replace(id: string, doc: Doc): Promise<Doc | undefined>;
  remove(id: string): Promise<boolean>;
  /** Removes the documents matching every condition; resolves to how many. */
  removeWhere(conditions: Condition[]): Promise<number>;
  /** Swaps the whole content at once; a unique violation leaves the old content. */
  replaceAll(docs: Doc[]): Promise<void>;
  /** Runs `fn` alone among the sections on the same key (a document id, or a name such as
   *  `$admins`): a read-modify-write never interleaves with another on that key, in this
   *  process and, on PostgreSQL, across processes. */
  exclusive<T>(key: string, fn: () => Promise<T> | T): Promise<T>;
  /** Reads document `id`, computes its next version with `change` (undefined: leave it) and
   *  writes it, within `exclusive(id)`. Resolves to the stored result, or undefined when the
   *  document is missing or `change` left it. */
  update(id: string, change: (current: Doc) => Doc | undefined | Promise<Doc | undefined>): Promise<Doc | undefined>;
  ensureIndex(spec: IndexSpec): Promise<void>;
  removeIndex(fieldName: string): Promise<void>;
  listIndexes(): Promise<Array<{ fieldName: string; unique: boolean }>>;
  drop(): Promise<void>;
}

/** The embedded DocStore seen through the shared interface (one wrapper per DocStore, so that
 *  per-store state kept by modules in WeakMaps follows the store). */
export class EmbeddedStore implements Store {
  /** While a write group writes here, what requests outside it see (group-hold.ts). */
  private readonly hold = new GroupHold();
  constructor(readonly doc: DocStore) {}
  async get(id: string) { return this.getNow(id); }
  getNow(id: string) {
    const before = this.hold.beforeImage(id);
    return before ? before.doc : this.doc.get(id);
  }
  async find(q: StoreQuery) { await this.hold.settled(); return this.doc.findSliced(q); }
  async findBy(path: string, value: unknown) { await this.hold.settled(); return this.doc.findBy(path, value); }
  async all() { await this.hold.settled(); return this.doc.all(); }
  async count() { await this.hold.settled(); return this.doc.size; }
  insert(doc: Doc) { return this.write([doc._id], () => this.doc.insert(doc)); }
  insertMany(docs: Doc[]) { return this.write(docs.map((d) => d._id), () => this.doc.insertMany(docs)); }
  replace(id: string, doc: Doc) { return this.write([id], () => this.doc.replace(id, doc)); }
  remove(id: string) { return this.write([id], () => this.doc.remove(id)); }
  async removeWhere(conditions: Condition[]) {
    await this.hold.settled();
    const ids = this.doc.find({ conditions, sort: [], limit: Number.MAX_SAFE_INTEGER, offset: 0 }).data.map((d) => d._id);
    if (!ids.length) return 0;
    return this.write(ids, () => this.doc.removeWhere({ _id: { $in: ids } }));
  }
  async replaceAll(docs: Doc[]) {
    if (activeWriteGroup()) throw new Error('replaceAll cannot be part of a write group');
    await this.hold.settled();
    return this.doc.replaceAll(docs).catch((err) => { throw translateNedbError(err); });
  }
  exclusive<T>(key: string, fn: () => Promise<T> | T) {
    return this.hold.section<T>((run) => this.doc.exclusive(key, run), fn);
  }
  update(id: string, change: (current: Doc) => Doc | undefined | Promise<Doc | undefined>) {
    const g = activeWriteGroup();
    if (g) return this.tracked(g, [id], () => this.doc.update(id, change));
    // doc.update takes the document's section itself: enter it as exclusive() would.
    return this.hold.section((run) => this.doc.exclusive(id, run), async () => {
      const current = this.doc.get(id);
      if (!current) return undefined;
      const next = await change(current);
      return next ? this.doc.replace(id, next) : undefined;
    });
  }

  /** A write: tracked when it belongs to a write group; outside one, it waits while a group
   *  holds the store (unless it runs in a section admitted before the group began). */
  private async write<T>(ids: string[], run: () => Promise<T>): Promise<T> {
    const g = activeWriteGroup();
    if (g) return this.tracked(g, ids, run);
    await this.hold.settled();
    return run();
  }

  /** A write inside a write group (write-group.ts): once it succeeded, the group can put the
   *  documents it touched back as they were before it. */
  private async tracked<T>(group: WriteGroup, ids: string[], write: () => Promise<T>): Promise<T> {
    const before = ids.map((id) => this.doc.get(id));
    this.hold.track(group, ids, (id) => this.doc.get(id));
    const out = await write();
    group.onUndo(async () => {
      for (let i = ids.length - 1; i >= 0; i--) {
        const was = before[i];
        const now = this.doc.get(ids[i]);
        if (was) await (now ? this.doc.replace(ids[i], was) : this.doc.insert(was));
        else if (now) await this.doc.remove(ids[i]);
      }
    });
    return out;
  }
  ensureIndex(spec: IndexSpec) { return this.doc.ensureIndex(spec); }
  removeIndex(fieldName: string) { return this.doc.removeIndex(fieldName); }
  async listIndexes() { return this.doc.listIndexes(); }
  drop() { return this.doc.drop(); }
}

const wrappers = new WeakMap<DocStore, EmbeddedStore>();

/** The embedded DocStore seen through the shared interface. */
export function embeddedStore(s: DocStore): EmbeddedStore {
  let w = wrappers.get(s);
  if (!w) { w = new EmbeddedStore(s); wrappers.set(s, w); }
  return w;
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
