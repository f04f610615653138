// The store interface both drivers implement: the embedded stores (DocStore over nedb, in this
// process's memory) and PostgreSQL (PgDocStore, a table per store). Everything is asynchronous,
// as the database is; the embedded driver answers at once.
import type { Condition, Doc, QueryResult, StoreQuery } from './query.js';
import { translateNedbError, type DocStore, type IndexSpec } from './doc-store.js';

export interface Store {
  get(id: string): Promise<Doc | undefined>;
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
  ensureIndex(spec: IndexSpec): Promise<void>;
  removeIndex(fieldName: string): Promise<void>;
  listIndexes(): Promise<Array<{ fieldName: string; unique: boolean }>>;
  drop(): Promise<void>;
}

/** The embedded DocStore seen through the shared interface. */
export function embeddedStore(s: DocStore): Store {
  return {
    get: async (id) => s.get(id),
    find: async (q) => s.find(q),
    findBy: async (path, value) => s.findBy(path, value),
    all: async () => s.all(),
    count: async () => s.size,
    insert: (doc) => s.insert(doc),
    insertMany: (docs) => s.insertMany(docs),
    replace: (id, doc) => s.replace(id, doc),
    remove: (id) => s.remove(id),
    removeWhere: async (conditions) => {
      const ids = s.find({ conditions, sort: [], limit: Number.MAX_SAFE_INTEGER, offset: 0 }).data.map((d) => d._id);
      return ids.length ? s.removeWhere({ _id: { $in: ids } }) : 0;
    },
    replaceAll: (docs) => s.replaceAll(docs).catch((err) => { throw translateNedbError(err); }),
    ensureIndex: (spec) => s.ensureIndex(spec),
    removeIndex: (f) => s.removeIndex(f),
    listIndexes: async () => s.listIndexes(),
    drop: () => s.drop(),
  };
}
