// The embedded store's reads: a document by id (the `_id` tree walked directly), every
// document, and list queries through the planner (planner.ts), remembered on big stores until
// the store next changes.
import type { AvlNode } from './nedb-types.js';
import { DEFAULT_SORT, runSliced, runSteps, type Doc, type QueryResult, type StoreQuery } from '../query.js';
import { querySteps, runQuery } from './planner.js';
import { IndexedStore } from './indexes.js';
import { indexKey } from '../store.js';
import type { SortOrders } from './sort-orders.js';

const MEMO_MAX = 64;

export class ReadableStore extends IndexedStore {
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
    return this.findWith(query, (q) => runSteps(querySteps(this.engine, this.count, q, undefined, false, this.ordersFor(q)))) as QueryResult;
  }

  /** `find` for requests: a query that takes longer than a slice of the event loop goes on in
   *  later turns (runSliced) and answers through a promise, so that no list holds the server. */
  findSliced(query: StoreQuery): QueryResult | Promise<QueryResult> {
    const result = this.findWith(query, (q) => runSliced(this.querySteps(q)));
    if (result instanceof Promise && (this.loaded || this.deferred.size)) {
      // Deferred index builds wait for it (scheduleDeferredBuild).
      this.slicedReads.add(result);
      const done = () => { this.slicedReads.delete(result); };
      result.then(done, done);
    }
    return result;
  }

  /** The query as steps to run (planner.ts: querySteps), unremembered. */
  querySteps(query: StoreQuery): ReturnType<typeof querySteps> {
    const started = this.generation;
    return querySteps(this.engine, this.count, query, { changed: () => this.generation !== started, size: () => this.count }, false, this.ordersFor(query));
  }

  /** The sort orders a list may use or start (sort-orders.ts), unless its sort field has an
   *  index still to be built (a big store's first lists after its load, the default order on
   *  `createdAt` among them): that index comes within a few turns, and an order made meanwhile
   *  would be built beside the list (slowing it) and then kept, and changed by every write, for
   *  nothing. Such a list scans, as it would have while the order was being built. */
  private ordersFor(query: StoreQuery): SortOrders | undefined {
    const path = (query.sort.length ? query.sort : DEFAULT_SORT)[0].path;
    if (this.deferred.has(indexKey(path)) || (path === '_id' && this.loaded)) return undefined;
    return this.orders;
  }

  protected findWith(query: StoreQuery, run: (q: StoreQuery) => QueryResult | Promise<QueryResult>): QueryResult | Promise<QueryResult> {
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

  /** Runs `fn` alone among the sections of the same document `id`: a read-modify-write (read
   *  the document, validate, write its next version) never interleaves with another on that
   *  document, so concurrent partial updates apply one after another. Reads elsewhere go on. */
  exclusive<T>(id: string, fn: () => Promise<T> | T): Promise<T> {
    return this.sections.run(id, fn);
  }
}
