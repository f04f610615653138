// The query planner and executor for list requests. nedb's own cursor matches, copies and
// sorts every candidate; this reads nedb's in-memory indexes directly instead:
//  - an equality / $in condition on an indexed field narrows the candidates to that index's bucket;
//  - a sort whose first key has an index is answered by walking that index in order and
//    stopping after offset + limit matches;
//  - totals are counted without copying, and an equality bucket's length is its total;
//  - otherwise one pass over the candidates counts the matches and keeps only the top
//    offset + limit in a sorted buffer (selectTop), without gathering or sorting the rest.
// Only the page that is returned is ever copied (by projection) or serialised.
import model from '@seald-io/nedb/lib/model.js';
import type { AvlNode, NedbEngine, NedbIndex } from './nedb-types.js';
import { arrayDocsOf } from './nedb-patches.js';
import { afterPosition, finishWindow, windowKeys } from '../page-window.js';
import type { Doc, Condition, SortKey, StoreQuery, QueryResult } from '../../shared/query.js';
import { DEFAULT_SORT } from '../../shared/query.js';
import { CHUNK, runSteps, type Steps } from '../query-steps.js';
import { comparator, RUN, SELECT_MAX, selectTopSteps, sortedTop, topKNow } from '../query-sort.js';
import { compileMatcher, isObjectLike } from '../query-match.js';
import { project } from '../query-project.js';
import { walkOrder, type SortOrder, type SortOrders } from './sort-orders.js';

/** Below this many candidates, gathering and sorting beats walking a sort index. */
const SCAN_THRESHOLD = 512;

const compareThings = model.compareThings;

export function runQuery(engine: NedbEngine, totalDocs: number, q: StoreQuery): QueryResult {
  return runSteps(querySteps(engine, totalDocs, q));
}

/** What a query that pauses needs to know of its store. */
export interface LiveStore {
  /** Has the content changed since the query started? */
  changed(): boolean;
  /** The number of documents now. */
  size(): number;
}

/** `orders`: the store's sort orders of unindexed fields (sort-orders.ts), when it keeps them. */
export function* querySteps(engine: NedbEngine, totalDocs: number, q: StoreQuery, live?: LiveStore, copyBuckets = false, orders?: SortOrders): Steps<QueryResult> {
  const sort = q.sort.length ? q.sort : DEFAULT_SORT;
  const want = q.offset + q.limit;

  // 1. The narrowest candidate set among indexed conditions: an equality bucket, or the range of
  //    an index that numeric range conditions ($gt $gte $lt $lte) on its field select; both sizes
  //    are known without visiting a document (a range sums its keys' buckets).
  let candidates: Doc[] | null = null;
  let candidateCount = totalDocs;
  let covered: Condition[] = [];
  for (const c of q.conditions) {
    if (c.op !== '$eq' && c.op !== '$in') continue;
    const index = singleIndex(engine, c.path);
    if (!index || c.values.some(isObjectLike)) continue;
    const bucket = index.getMatching(c.values.length === 1 ? c.values[0] : c.values) as Doc[];
    if (covered.length === 0 || bucket.length < candidateCount) { candidates = bucket; candidateCount = bucket.length; covered = [c]; }
  }
  const ranges = numericRanges(engine, q.conditions);
  let range: NumericRange | undefined;
  for (const r of ranges.values()) {
    const n = yield* walkRange(r, null);
    if (covered.length === 0 || n < candidateCount) { range = r; candidates = null; candidateCount = n; covered = r.conditions; }
  }
  // A bucket is the index's own array, changed in place by writes. A pass over it that paused
  // while the store changed starts the query again on a copy (copying every bucket up front
  // cost more than the pass itself). Without a LiveStore the steps are run to the end at once.
  let copied = !live;
  if (candidates && copyBuckets && candidates.length > CHUNK) { candidates = candidates.slice(); copied = true; }
  const bucketPass = function* <T>(steps: Steps<T>): Steps<T | typeof AGAIN> {
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      yield;
      if (!copied && live!.changed()) return AGAIN;
    }
  };
  const rest = covered.length ? q.conditions.filter((c) => !covered.includes(c)) : q.conditions;
  const matchRest = compileMatcher(rest, q.or);
  const matchAll = compileMatcher(q.conditions, q.or);
  const restOrNull = rest.length || q.or?.length ? matchRest : null;
  /** The candidates as an array, gathered when first needed (a range's documents, or all). */
  function* pool(): Steps<Doc[]> {
    if (candidates) return candidates;
    copied = true;
    if (range) { const docs: Doc[] = []; yield* walkRange(range, docs); return (candidates = docs); }
    return (candidates = yield* allDocs(engine));
  }

  function* countMatches(): Steps<number | typeof AGAIN> {
    if (rest.length === 0 && !q.or?.length) return candidateCount;
    return yield* bucketPass(countIn(yield* pool(), matchRest));
  }
  const again = () => querySteps(engine, live!.size(), q, live, true, orders);

  if (q.limit === 0) {
    const total = yield* countMatches();
    return total === AGAIN ? yield* again() : { data: [], total };
  }

  if (q.window) {
    // Keyset paging: read limit + 1 from the window's position on (walking the first key's
    // index from that position when it has one), so a page deep in the list costs what the first does.
    const keys = windowKeys(sort, q.window.backward);
    const position = q.window.seek;
    const after = position ? afterPosition(keys, position) : null;
    const index = orderedIndex(engine, keys[0].path);
    let read: Doc[];
    if (index && candidateCount > SCAN_THRESHOLD) {
      read = yield* scanInOrder(index, keys, after ? (d) => matchAll(d) && after(d) : matchAll, q.offset + q.limit + 1, undefined, position ? { key: position[0], inclusive: true } : undefined);
    } else {
      const top = yield* bucketPass(selectTopSteps(yield* pool(), after ? (d) => matchRest(d) && after(d) : restOrNull, keys, q.offset + q.limit + 1, comparator(keys)));
      if (top === AGAIN) return yield* again();
      read = top.page;
    }
    const windowPage = finishWindow(q, keys, read.slice(q.offset));
    const total = yield* countMatches();
    if (total === AGAIN) return yield* again();
    return { data: q.fields ? windowPage.map((d) => project(d, q.fields!)) : windowPage, total };
  }

  const sortIndex = orderedIndex(engine, sort[0].path);
  const cmp = comparator(sort);
  let page: Doc[];
  let total: number;
  // No index on the sort field: a sort order kept for it (sort-orders.ts), when walking it
  // costs less than passing over the candidates.
  let order: SortOrder | undefined;
  if (!sortIndex && orders && want <= candidateCount) {
    const use = orders.forList(sort[0].path, totalDocs, candidateCount, want, q.conditions.length === 0 && !q.or?.length, want > SELECT_MAX);
    if (use?.drive) while (!use.order.advance()) yield;
    if (use?.order.ready) order = use.order;
  }
  if (order) {
    // The walk keeps only the page (its first `offset` matches are counted, not kept).
    page = yield* walkOrder(order, sort, matchAll, want, q.offset);
    const counted = yield* countMatches();
    if (counted === AGAIN) return yield* again();
    total = counted;
  } else if (sortIndex && candidateCount > SCAN_THRESHOLD && want <= candidateCount) {
    // A range on the sort field itself bounds the walk: it starts at one end of the range.
    page = yield* scanInOrder(sortIndex, sort, matchAll, want, ranges.get(sort[0].path));
    const counted = yield* countMatches();
    if (counted === AGAIN) return yield* again();
    total = counted;
  } else {
    const top = yield* bucketPass(selectTopSteps(yield* pool(), restOrNull, sort, want, cmp));
    if (top === AGAIN) return yield* again();
    ({ page, total } = top);
  }
  if (!order) page = page.slice(q.offset);
  return { data: q.fields ? page.map((d) => project(d, q.fields!)) : page, total };
}

/** A pass over a live bucket saw the store change: start again. */
const AGAIN = Symbol('again');

/** One end of a range of index keys. */
interface Bound { key: number; inclusive: boolean }

/** The numbers an index holds between two bounds, and the range conditions that select them. */
interface NumericRange { index: NedbIndex; lo: Bound; hi: Bound; conditions: Condition[] }

/** The numeric range conditions on indexed fields, merged by field (`$gte=20&$lt=30`). A range
 *  condition on a number matches numbers in the range and strings that read as such numbers
 *  (comparesAny); in an index, numbers sit together in order and strings after them, so an
 *  index with no string key (and no array, which it would hold under each element) has exactly
 *  the matches in its number keys between the bounds. Others are left to the matcher. */
function numericRanges(engine: NedbEngine, conditions: Condition[]): Map<string, NumericRange> {
  const out = new Map<string, NumericRange>();
  for (const c of conditions) {
    if (!RANGE_OPS.has(c.op) || c.kind || c.values.length !== 1 || typeof c.values[0] !== 'number') continue;
    let r = out.get(c.path);
    if (!r) {
      const index = singleIndex(engine, c.path);
      if (!index || arrayDocsOf(index) !== 0 || hasStringKey(index)) continue;
      r = { index, lo: { key: -Infinity, inclusive: true }, hi: { key: Infinity, inclusive: true }, conditions: [] };
      out.set(c.path, r);
    }
    const key = c.values[0] as number;
    const inclusive = c.op === '$gte' || c.op === '$lte';
    if (c.op === '$gt' || c.op === '$gte') {
      if (key > r.lo.key || (key === r.lo.key && !inclusive)) r.lo = { key, inclusive };
    } else if (key < r.hi.key || (key === r.hi.key && !inclusive)) r.hi = { key, inclusive };
    r.conditions.push(c);
  }
  return out;
}

const RANGE_OPS = new Set(['$gt', '$gte', '$lt', '$lte']);

function hasStringKey(index: NedbIndex): boolean {
  const stack = seek(index, false, { key: '', inclusive: true });
  return stack.length > 0 && typeof stack[stack.length - 1].key === 'string';
}

function inRange(key: unknown, r: { lo: Bound; hi: Bound }): boolean {
  return typeof key === 'number' && (key > r.lo.key || (key === r.lo.key && r.lo.inclusive)) && (key < r.hi.key || (key === r.hi.key && r.hi.inclusive));
}

/** Counts the documents under the range's keys (visiting keys, not documents), and gathers them
 *  into `into` when given. */
function* walkRange(r: NumericRange, into: Doc[] | null): Steps<number> {
  const walk: RangeWalk = { stack: seek(r.index, false, r.lo), n: 0, last: undefined, done: false };
  for (;;) {
    rangeChunk(r, walk, into);
    if (walk.done) return walk.n;
    yield;
    walk.stack = seek(r.index, false, { key: walk.last, inclusive: false });
  }
}

interface RangeWalk { stack: AvlNode[]; n: number; last: unknown; done: boolean }

/** walkRange's work up to about CHUNK units (plain code: loops in a generator run slower). */
function rangeChunk(r: NumericRange, w: RangeWalk, into: Doc[] | null): void {
  let work = 0;
  const stack = w.stack;
  while (stack.length) {
    const current = stack.pop()!;
    if (!inRange(current.key, r)) break;
    for (let node = current.right; node; node = node.left) stack.push(node);
    const data = current.data as Doc[];
    w.n += data.length;
    if (into) for (let i = 0; i < data.length; i++) into.push(data[i]);
    work += into ? data.length : 1;
    if (work >= CHUNK) { w.last = current.key; return; }
  }
  w.done = true;
}

/** Every document, in id order: the `_id` index walked a chunk at a time (its list in one go
 *  took tens of ms at 100,000 documents). A store whose `_id` index is not built yet answers
 *  from its load (doc-store.ts). */
export function* allDocs(engine: NedbEngine): Steps<Doc[]> {
  const index = Object.prototype.hasOwnProperty.call(engine.indexes, '_id') ? engine.indexes._id : undefined;
  if (!index) return engine.getAllData() as Doc[];
  const out: Doc[] = [];
  const walk = { stack: seek(index, false), last: undefined as unknown, done: false };
  for (;;) {
    collectChunk(walk, out);
    if (walk.done) return out;
    yield;
    walk.stack = seek(index, false, { key: walk.last, inclusive: false });
  }
}

function collectChunk(w: { stack: AvlNode[]; last: unknown; done: boolean }, into: Doc[]): void {
  const stack = w.stack;
  let work = 0;
  while (stack.length) {
    const current = stack.pop()!;
    for (let node = current.right; node; node = node.left) stack.push(node);
    const data = current.data as Doc[];
    for (let i = 0; i < data.length; i++) into.push(data[i]);
    work += data.length;
    if (work >= CHUNK) { w.last = current.key; return; }
  }
  w.done = true;
}

function* countIn(pool: readonly Doc[], match: (d: Doc) => boolean): Steps<number> {
  let n = 0;
  for (let from = 0; from < pool.length; from += CHUNK) {
    if (from > 0) yield;
    n += countChunk(pool, match, from, Math.min(pool.length, from + CHUNK));
  }
  return n;
}

function countChunk(pool: readonly Doc[], match: (d: Doc) => boolean, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (match(pool[i])) n++;
  return n;
}

function singleIndex(engine: NedbEngine, path: string): NedbIndex | undefined {
  // Own keys only: a filter on `constructor` or `__proto__` must not find Object.prototype's.
  const index = Object.prototype.hasOwnProperty.call(engine.indexes, path) ? engine.indexes[path] : undefined;
  return index && index._fields.length === 1 ? index : undefined;
}

/** An index can stand for an ordering when it holds every document (not sparse) and no
 *  document has an array there (nedb files those under each element; a sort compares the
 *  array as a whole). */
function orderedIndex(engine: NedbEngine, path: string): NedbIndex | undefined {
  const index = singleIndex(engine, path);
  return index && !index.sparse && arrayDocsOf(index) === 0 ? index : undefined;
}

/** Walks the index in the sort's direction, stopping once `want` matches are found. Each
 *  document sits under one key (orderedIndex); documents that share a key are ordered by the
 *  remaining sort keys, then id, and only as many as still needed are kept. With `range` (numeric
 *  range conditions on the sort field) the walk starts at the range's first key in its direction
 *  and ends after its last; with `start` (a keyset window) it starts at that key. Pauses only between keys; after a pause it finds its place again
 *  from the root (writes may have reshaped the tree), just after the last key it finished. */
function* scanInOrder(index: NedbIndex, sort: SortKey[], match: (d: Doc) => boolean, want: number, range?: NumericRange,
  start?: { key: unknown; inclusive: boolean }): Steps<Doc[]> {
  const w: IndexWalk = {
    index, range, match, want, descending: sort[0].dir === -1, tieCmp: comparator(sort.slice(1)),
    stack: [], out: [], last: undefined, bigTies: null,
  };
  // From the start, the range's first key, or (a keyset window) a given key on.
  w.stack = seek(index, w.descending, start ?? (range && (w.descending ? range.hi : range.lo)));
  for (;;) {
    const more = walkChunk(w);
    if (w.bigTies) {
      // Many documents under one key: ordered in steps too.
      for (const d of yield* sortedTop(w.bigTies, w.tieCmp, want - w.out.length)) w.out.push(d);
      w.bigTies = null;
    }
    if (!more || w.out.length >= want) return w.out;
    yield;
    w.stack = seek(index, w.descending, { key: w.last, inclusive: false });
  }
}

interface IndexWalk {
  index: NedbIndex; range: NumericRange | undefined; match: (d: Doc) => boolean; want: number;
  descending: boolean; tieCmp: (a: Doc, b: Doc) => number;
  stack: AvlNode[]; out: Doc[];
  /** The key last finished (a paused walk resumes after it). */
  last: unknown;
  /** The matches under the last key, when too many to order at once. */
  bigTies: Doc[] | null;
}

/** scanInOrder's walk for about CHUNK documents, or up to a key with many matches (left in
 *  `bigTies`); false once the walk is over. */
function walkChunk(w: IndexWalk): boolean {
  let work = 0;
  const { stack, out, match, descending, range } = w;
  while (stack.length && out.length < w.want) {
    const current = stack.pop()!;
    if (range && !inRange(current.key, range)) return false;
    for (let node = descending ? current.left : current.right; node; node = descending ? node.right : node.left) stack.push(node);
    w.last = current.key;
    const data = current.data as Doc[];
    if (data.length === 1) {
      if (match(data[0])) out.push(data[0]);
      work++;
    } else {
      const hits: Doc[] = [];
      for (let i = 0; i < data.length; i++) if (match(data[i])) hits.push(data[i]);
      work += data.length;
      if (hits.length > RUN) { w.bigTies = hits; return stack.length > 0; }
      const top = topKNow(hits, w.tieCmp, w.want - out.length);
      for (let i = 0; i < top.length; i++) out.push(top[i]);
    }
    if (work >= CHUNK) return stack.length > 0;
  }
  return false;
}

/** The in-order walk's stack positioned at the first key of the index in the walk's direction,
 *  or, with `from`, at the first key at or after (`inclusive`) or strictly after `from.key` in
 *  that direction; its top is the next node. */
function seek(index: NedbIndex, descending: boolean, from?: { key: unknown; inclusive: boolean }): AvlNode[] {
  const stack: AvlNode[] = [];
  const root = index.tree.tree;
  if (!Object.prototype.hasOwnProperty.call(root, 'key')) return stack;
  for (let node: AvlNode | null | undefined = root; node;) {
    const c = from ? compareThings(node.key, from.key) * (descending ? -1 : 1) : 1;
    if (c > 0 || (c === 0 && from!.inclusive)) { stack.push(node); node = descending ? node.right : node.left; }
    else node = descending ? node.left : node.right;
  }
  return stack;
}
