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
import { afterPosition, finishWindow, windowKeys } from './page-window.js';

export { FILTER_OPERATORS, DEFAULT_SORT, numericString, parseIsoDate } from '../shared/query.js';
export type { Doc, FilterOp, Condition, SortKey, StoreQuery, QueryResult } from '../shared/query.js';
import type { Doc, Condition, SortKey, StoreQuery, QueryResult } from '../shared/query.js';
import { DEFAULT_SORT, numericString, parseIsoDate } from '../shared/query.js';

/** Below this many candidates, gathering and sorting beats walking a sort index. */
const SCAN_THRESHOLD = 512;

const compareThings = model.compareThings;
const hasOwn = Object.prototype.hasOwnProperty;

/** A document's value at a dot path, reading own properties only (a field named `toString` is
 *  not Object.prototype's); arrays are reached by index or mapped over, as nedb's getDotValue does. */
export function getPath(doc: unknown, path: string): unknown {
  if (path.indexOf('.') === -1) return doc !== null && typeof doc === 'object' && hasOwn.call(doc, path) ? (doc as Record<string, unknown>)[path] : undefined;
  return walk(doc, path.split('.'), 0);
}

function walk(value: unknown, parts: string[], i: number): unknown {
  if (i === parts.length) return value;
  if (value === null || typeof value !== 'object' || !hasOwn.call(value, parts[i])) return undefined;
  const next = (value as Record<string, unknown>)[parts[i]];
  if (Array.isArray(next) && i + 1 < parts.length) {
    const index = Number.parseInt(parts[i + 1], 10);
    return Number.isNaN(index) ? next.map((el) => walk(el, parts, i + 1)) : walk(next[index], parts, i + 2);
  }
  return walk(next, parts, i + 1);
}

/** Work (documents visited, values compared or moved) between two looks at the clock: each
 *  loop over documents runs in plain functions a chunk at a time, the generator around them
 *  only pauses between chunks (V8 runs long loops inside a generator slower). */
const CHUNK = 1024;
/** A query that has run this long gives the event loop a turn before it goes on, so that no
 *  list request holds the server for longer (other requests, health checks, timers and
 *  sockets are served in between). */
export const SLICE_MS = 8;

/** The steps of a query: a generator that yields every CHUNK units of work or so. */
type Steps<T> = Generator<void, T, void>;

/** Runs the steps to the end at once (small stores, internal reads). */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) { const r = steps.next(); if (r.done) return r.value; }
}

/** Runs the steps for up to SLICE_MS; if they are not done by then, the rest runs in slices of
 *  SLICE_MS, one per event-loop turn (setImmediate), and a promise is returned. The documents a
 *  query reads are the versions of when it started (stored documents are replaced, never
 *  mutated, and the arrays it walks are its own); an index walk that pauses finds its place
 *  again by key, so a record written meanwhile may or may not be seen. */
export function runSliced<T>(steps: Steps<T>): T | Promise<T> {
  const first = slice(steps);
  if (first.done) return first.value;
  return new Promise<T>((resolve, reject) => {
    const next = () => {
      try {
        const r = slice(steps);
        if (r.done) resolve(r.value);
        else setImmediate(next);
      } catch (err) {
        reject(err);
      }
    };
    setImmediate(next);
  });
}

function slice<T>(steps: Steps<T>): { done: true; value: T } | { done: false } {
  const end = performance.now() + SLICE_MS;
  for (;;) {
    const r = steps.next();
    if (r.done) return { done: true, value: r.value };
    if (performance.now() >= end) return { done: false };
  }
}

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

export function* querySteps(engine: NedbEngine, totalDocs: number, q: StoreQuery, live?: LiveStore, copyBuckets = false): Steps<QueryResult> {
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
  const again = () => querySteps(engine, live!.size(), q, live, true);

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
  if (sortIndex && candidateCount > SCAN_THRESHOLD && want <= candidateCount) {
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
  page = page.slice(q.offset);
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
function* allDocs(engine: NedbEngine): Steps<Doc[]> {
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

function isObjectLike(v: unknown) { return v !== null && typeof v === 'object'; }

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

const byId = (a: Doc, b: Doc): number => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

export function comparator(sort: SortKey[]) {
  if (sort.length === 0) return byId;
  if (sort.length === 1) {
    const { path, dir } = sort[0];
    return (a: Doc, b: Doc): number => compareThings(getPath(a, path), getPath(b, path)) * dir || byId(a, b);
  }
  return (a: Doc, b: Doc): number => {
    for (const { path, dir } of sort) {
      const r = compareThings(getPath(a, path), getPath(b, path));
      if (r !== 0) return r * dir;
    }
    return a._id < b._id ? -1 : a._id > b._id ? 1 : 0;
  };
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

/** Above this many, selectTop gathers the matches and sorts them (a sorted buffer of k costs
 *  O(k) per insertion). */
const SELECT_MAX = 1000;

/** The first `k` documents of `pool` that `match` accepts (all when null), in `sort` order, and
 *  how many matched: exactly `pool.filter(match).sort(comparator(sort)).slice(0, k)` and its
 *  length, without sorting the matches. One pass keeps a sorted buffer of at most k; each
 *  candidate's first sort key is read once and compared with the buffer's last (numbers and
 *  strings inline, anything else through nedb's compareThings, its type order included); only
 *  on a tie does the full comparator (remaining keys, then id) decide. */
export function selectTop(pool: readonly Doc[], match: ((d: Doc) => boolean) | null, sort: SortKey[], k: number,
  cmp: (a: Doc, b: Doc) => number = comparator(sort)): { page: Doc[]; total: number } {
  return runSteps(selectTopSteps(pool, match, sort, k, cmp));
}

function* selectTopSteps(pool: readonly Doc[], match: ((d: Doc) => boolean) | null, sort: SortKey[], k: number,
  cmp: (a: Doc, b: Doc) => number): Steps<{ page: Doc[]; total: number }> {
  if (k > SELECT_MAX || sort.length === 0) {
    let matched: Doc[];
    if (match) {
      matched = [];
      for (let from = 0; from < pool.length; from += CHUNK) {
        if (from > 0) yield;
        filterChunk(pool, match, from, Math.min(pool.length, from + CHUNK), matched);
      }
    } else {
      matched = pool.slice();
    }
    return { page: yield* sortedTop(matched, cmp, k), total: matched.length };
  }
  const top = new TopBuffer(k, sort[0].dir, fieldReader(sort[0].path), cmp, match);
  for (let from = 0; from < pool.length; from += CHUNK) {
    if (from > 0) yield;
    top.add(pool, from, Math.min(pool.length, from + CHUNK));
  }
  return { page: top.docs, total: top.total };
}

function filterChunk(pool: readonly Doc[], match: (d: Doc) => boolean, from: number, to: number, into: Doc[]): void {
  for (let i = from; i < to; i++) if (match(pool[i])) into.push(pool[i]);
}

/** selectTop's sorted buffer of at most k documents, fed a chunk at a time (plain code: loops in
 *  a generator run slower). */
class TopBuffer {
  readonly docs: Doc[] = [];
  private readonly keys: unknown[] = [];
  private worstDoc: Doc | undefined;
  private worstKey: unknown;
  total = 0;

  constructor(private readonly k: number, private readonly dir: 1 | -1, private readonly read: (d: Doc) => unknown,
    private readonly cmp: (a: Doc, b: Doc) => number, private readonly match: ((d: Doc) => boolean) | null) {}

  add(pool: readonly Doc[], from: number, to: number): void {
    const { k, dir, read, cmp, match, docs, keys } = this;
    for (let i = from; i < to; i++) {
      const d = pool[i];
      if (match !== null && !match(d)) continue;
      this.total++;
      if (k === 0) continue;
      const v = read(d);
      if (docs.length === k) {
        const worstKey = this.worstKey;
        const c = (typeof v === 'number' && typeof worstKey === 'number') || (typeof v === 'string' && typeof worstKey === 'string')
          ? (v < worstKey ? -1 : v > worstKey ? 1 : 0) : compareThings(v, worstKey);
        if (c * dir > 0 || (c === 0 && cmp(d, this.worstDoc!) >= 0)) continue;
        docs.pop();
        keys.pop();
      }
      // Binary search for the first buffered document that sorts after d.
      let lo = 0, hi = docs.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const c = compareThings(keys[mid], v) * dir || cmp(docs[mid], d);
        if (c <= 0) lo = mid + 1; else hi = mid;
      }
      docs.splice(lo, 0, d);
      keys.splice(lo, 0, v);
      this.worstDoc = docs[docs.length - 1];
      this.worstKey = keys[keys.length - 1];
    }
  }
}

const readers = new Map<string, (d: Doc) => unknown>();

/** getPath for one path as a function. A plain field that Object.prototype does not have is read
 *  by a compiled `d["field"]`, a named load V8 caches per document shape (a keyed load with a
 *  variable key plus hasOwnProperty cost 5× more per document); that load is an own read since
 *  documents are plain objects whose prototype holds no such key. The path is embedded as a JSON
 *  string literal, never as code. */
export function fieldReader(path: string): (d: Doc) => unknown {
  let read = readers.get(path);
  if (read) return read;
  if (path.indexOf('.') !== -1 || path in Object.prototype) read = (d) => getPath(d, path);
  else read = new Function('d', `return d[${JSON.stringify(path)}];`) as (d: Doc) => unknown;
  if (readers.size >= 1000) readers.clear();
  readers.set(path, read);
  return read;
}

/** The first `k` of `docs` in `cmp` order; keeps a small sorted buffer instead of sorting all. */
export function topK(docs: Doc[], cmp: (a: Doc, b: Doc) => number, k: number): Doc[] {
  return runSteps(sortedTop(docs, cmp, k));
}

/** topK at once, for at most RUN documents. */
function topKNow(docs: Doc[], cmp: (a: Doc, b: Doc) => number, k: number): Doc[] {
  if (docs.length <= k * 4 || k > SELECT_MAX) return docs.length <= k ? docs.sort(cmp) : docs.sort(cmp).slice(0, k);
  const best: Doc[] = [];
  bufferChunk(docs, cmp, k, best, 0, docs.length);
  return best;
}

/** Keeps in `best` (sorted, at most k) the first of `docs[from..to)` in `cmp` order. */
function bufferChunk(docs: Doc[], cmp: (a: Doc, b: Doc) => number, k: number, best: Doc[], from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const d = docs[i];
    if (best.length === k) {
      if (cmp(d, best[k - 1]) >= 0) continue;
      best.pop();
    }
    let lo = 0, hi = best.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (cmp(best[mid], d) <= 0) lo = mid + 1; else hi = mid; }
    best.splice(lo, 0, d);
  }
}

/** Sorted runs of this many documents are merged (sortedTop). */
const RUN = 1024;

/** The first `k` of `docs` (an array of the caller's, reordered) in `cmp` order, in steps: a
 *  small sorted buffer when k is small against the documents; otherwise runs of RUN sorted one
 *  at a time, each cut to k, then merged two by two (each merge cut to k too). */
function* sortedTop(docs: Doc[], cmp: (a: Doc, b: Doc) => number, k: number): Steps<Doc[]> {
  if (docs.length <= RUN) return topKNow(docs, cmp, k);
  if (docs.length > k * 4 && k <= SELECT_MAX) {
    const best: Doc[] = [];
    for (let from = 0; from < docs.length; from += CHUNK) {
      if (from > 0) yield;
      bufferChunk(docs, cmp, k, best, from, Math.min(docs.length, from + CHUNK));
    }
    return best;
  }
  let runs: Doc[][] = [];
  for (let i = 0; i < docs.length; i += RUN) {
    const run = docs.slice(i, i + RUN).sort(cmp);
    runs.push(run.length > k ? run.slice(0, k) : run);
    yield;
  }
  while (runs.length > 1) {
    const next: Doc[][] = [];
    for (let r = 0; r < runs.length; r += 2) {
      if (r + 1 === runs.length) { next.push(runs[r]); continue; }
      const merge: Merge = { a: runs[r], b: runs[r + 1], i: 0, j: 0, out: [] };
      const n = Math.min(k, merge.a.length + merge.b.length);
      while (merge.out.length < n) {
        mergeChunk(merge, cmp, Math.min(n, merge.out.length + CHUNK));
        if (merge.out.length < n) yield;
      }
      next.push(merge.out);
    }
    runs = next;
    yield;
  }
  return runs[0];
}

interface Merge { a: Doc[]; b: Doc[]; i: number; j: number; out: Doc[] }

function mergeChunk(m: Merge, cmp: (a: Doc, b: Doc) => number, until: number): void {
  const { a, b, out } = m;
  let { i, j } = m;
  while (out.length < until) out.push(j >= b.length || (i < a.length && cmp(a[i], b[j]) <= 0) ? a[i++] : b[j++]);
  m.i = i; m.j = j;
}

/** A projection mask: for each key, `true` (the whole value) or the mask of its sub-paths. */
type Mask = Map<string, Mask | true>;
const masks = new WeakMap<string[], Mask>();

function maskOf(fields: string[]): Mask {
  let mask = masks.get(fields);
  if (mask) return mask;
  mask = new Map();
  for (const f of fields) {
    const parts = f.split('.');
    let level = mask;
    for (let i = 0; i < parts.length; i++) {
      const have = level.get(parts[i]);
      if (have === true) break; // a shorter path already takes the whole value
      if (i === parts.length - 1) { level.set(parts[i], true); break; }
      const next: Mask = have ?? new Map();
      level.set(parts[i], next);
      level = next;
    }
  }
  masks.set(fields, mask);
  return mask;
}

/** A list query over documents held in memory (the request log, collection definitions, a
 *  channel's members): filter, sort (`defaultSort` when the query names none), page, project. */
export function queryDocs(docs: Doc[], q: StoreQuery, defaultSort: SortKey[] = []): QueryResult {
  const matched = docs.filter(compileMatcher(q.conditions, q.or));
  const sort = q.sort.length ? q.sort : defaultSort;
  if (q.window && q.limit > 0) {
    const keys = windowKeys(sort, q.window.backward);
    const position = q.window.seek;
    const after = position ? afterPosition(keys, position) : null;
    const read = (after ? matched.filter(after) : matched).sort(comparator(keys)).slice(q.offset, q.offset + q.limit + 1);
    const page = finishWindow(q, keys, read);
    return { data: q.fields ? page.map((d) => project(d, q.fields!)) : page, total: matched.length };
  }
  if (sort.length) matched.sort(comparator(sort));
  const page = q.limit === 0 ? [] : matched.slice(q.offset, q.offset + q.limit);
  return { data: q.fields ? page.map((d) => project(d, q.fields!)) : page, total: matched.length };
}

/** The document with only `fields` (dot paths) and `_id`, in the document's own shape: an array
 *  of objects keeps being an array (`items.name` → `items: [{ name: "a" }, { name: "b" }]`; an
 *  element without the key is `{}`, a non-object element is left out); a numeric segment after
 *  an array (`items.1.name`) keeps only the elements named so. Reads own properties only. */
export function project(doc: Doc, fields: string[]): Doc {
  const out = pickObject(doc, maskOf(fields)) ?? {};
  return { _id: doc._id, ...out } as Doc;
}

function pick(value: unknown, mask: Mask | true): unknown {
  if (mask === true) return value;
  if (Array.isArray(value)) return pickArray(value, mask);
  if (value !== null && typeof value === 'object') return pickObject(value as Record<string, unknown>, mask);
  return undefined;
}

function pickObject(obj: Record<string, unknown>, mask: Mask): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const [key, sub] of mask) {
    if (!hasOwn.call(obj, key)) continue;
    const v = pick(obj[key], sub);
    if (v === undefined) continue;
    (out ??= {})[key] = v;
  }
  return out;
}

function mergeMasks(a: Mask, b: Mask): Mask {
  const out: Mask = new Map(a);
  for (const [key, sub] of b) {
    const have = out.get(key);
    out.set(key, have === undefined ? sub : have === true || sub === true ? true : mergeMasks(have, sub));
  }
  return out;
}

function pickArray(arr: unknown[], mask: Mask): unknown[] {
  // Named elements (numeric segments), and what every element keeps (the other segments).
  let every: Mask | undefined;
  let named: Map<number, Mask | true> | undefined;
  for (const [key, sub] of mask) {
    if (/^\d+$/.test(key)) (named ??= new Map()).set(Number(key), sub);
    else (every ??= new Map()).set(key, sub);
  }
  const out: unknown[] = [];
  for (let i = 0; i < arr.length; i++) {
    const own = named?.get(i);
    if (!every && own === undefined) continue;
    const el = arr[i];
    if (own === true) { out.push(el); continue; }
    const elMask = own && every ? mergeMasks(every, own) : (own ?? every)!;
    if (Array.isArray(el)) { out.push(pickArray(el, elMask)); continue; }
    if (el === null || typeof el !== 'object') continue;
    out.push(pickObject(el as Record<string, unknown>, elMask) ?? {});
  }
  return out;
}

// ---- matching -------------------------------------------------------------------------

export function compileMatcher(conditions: Condition[], or?: Condition[][][]): (doc: Doc) => boolean {
  if (or?.length) {
    // Every group must hold; a group holds when one of its branches (all its conditions) does.
    const all = compileMatcher(conditions);
    const groups = or.map((branches) => branches.map((branch) => compileMatcher(branch)));
    return (doc) => all(doc) && groups.every((branches) => branches.some((b) => b(doc)));
  }
  if (conditions.length === 0) return () => true;
  const tests = conditions.map(compileCondition);
  if (tests.length === 1) return tests[0];
  return (doc) => { for (const t of tests) if (!t(doc)) return false; return true; };
}

function compileCondition(c: Condition): (doc: Doc) => boolean {
  const { path, values } = c;
  const get = (doc: Doc) => getPath(doc, path);
  switch (c.op) {
    case '$eq': case '$in': {
      // The common case, one primitive on a plain field: compare inline, fall back for arrays/objects.
      if (values.length === 1 && !isObjectLike(values[0]) && path.indexOf('.') === -1) {
        const want = values[0];
        return (d) => { const v = d[path]; return v === want || (isObjectLike(v) && equalsAny(v, values)); };
      }
      // A long list of primitives: one Set lookup instead of a comparison per value.
      if (values.length > 4 && !values.some(isObjectLike)) { const set = new Set(values); return (d) => inSet(get(d), set, values); }
      return (d) => equalsAny(get(d), values);
    }
    case '$ne': case '$nin': {
      if (values.length > 4 && !values.some(isObjectLike)) { const set = new Set(values); return (d) => !inSet(get(d), set, values); }
      return (d) => !equalsAny(get(d), values);
    }
    case '$exists': { const want = values[0] !== false; return (d) => (get(d) !== undefined) === want; }
    case '$gt': case '$gte': case '$lt': case '$lte': {
      const ok = c.op === '$gt' ? (r: number) => r > 0 : c.op === '$gte' ? (r: number) => r >= 0 : c.op === '$lt' ? (r: number) => r < 0 : (r: number) => r <= 0;
      const slow = (d: Doc) => comparesAny(get(d), values, ok, c.kind);
      // One number on a plain field: a number value is compared inline (a number read there is
      // the document's own: Object.prototype holds none); anything else goes the general way.
      if (!c.kind && values.length === 1 && typeof values[0] === 'number' && path.indexOf('.') === -1) {
        const a = values[0];
        switch (c.op) {
          case '$gt': return (d) => { const v = d[path]; return typeof v === 'number' ? v > a : slow(d); };
          case '$gte': return (d) => { const v = d[path]; return typeof v === 'number' ? v >= a : slow(d); };
          case '$lt': return (d) => { const v = d[path]; return typeof v === 'number' ? v < a : slow(d); };
          default: return (d) => { const v = d[path]; return typeof v === 'number' ? v <= a : slow(d); };
        }
      }
      return slow;
    }
    case '$contains': {
      const needles = values.map((v) => String(v).toLowerCase());
      return (d) => {
        const v = get(d);
        if (typeof v === 'string') { const s = v.toLowerCase(); return needles.some((n) => s.includes(n)); }
        if (Array.isArray(v)) return v.some((e) => equalsAny(e, values));
        return false;
      };
    }
    case '$startsWith': {
      const prefixes = values.map((v) => String(v).toLowerCase());
      return (d) => { const v = get(d); return typeof v === 'string' && prefixes.some((p) => v.toLowerCase().startsWith(p)); };
    }
  }
}

/** equalsAny when every alternative is a primitive (held in `set`): a primitive equals one when
 *  the set has it (the values never hold NaN), an array when an element does (its JSON text
 *  never equals a primitive's); other objects are compared as equalsAny does. */
function inSet(v: unknown, set: Set<unknown>, alternatives: unknown[]): boolean {
  if (!isObjectLike(v)) return set.has(v);
  if (Array.isArray(v)) return v.some((e) => inSet(e, set, alternatives));
  return equalsAny(v, alternatives);
}

function equalsAny(v: unknown, alternatives: unknown[]): boolean {
  if (Array.isArray(v)) return v.some((e) => equalsAny(e, alternatives)) || alternatives.some((a) => deepEqual(v, a));
  for (const a of alternatives) if (v === a || (isObjectLike(v) && deepEqual(v, a))) return true;
  return false;
}

/** Range comparisons only compare values of the same kind: number with number (a string that
 *  reads as a number, `"25"`, counts as that number, never as text: "25" is not >= 100), string
 *  with string, and for `kind: 'date'` the instants of ISO date strings. */
function comparesAny(v: unknown, alternatives: unknown[], ok: (r: number) => boolean, kind?: 'date'): boolean {
  if (Array.isArray(v)) return v.some((e) => comparesAny(e, alternatives, ok, kind));
  if (v === undefined || v === null) return false;
  if (kind === 'date') {
    const t = typeof v === 'string' ? parseIsoDate(v) : undefined;
    if (t === undefined) return false;
    for (const a of alternatives) if (typeof a === 'number' && ok(t - a)) return true;
    return false;
  }
  for (const a of alternatives) {
    if (a === null) continue;
    if (typeof a === typeof v) {
      if (ok(compareThings(v, a))) return true;
    } else if (typeof a === 'number' && typeof v === 'string') {
      const n = numericString(v);
      if (n !== undefined && ok(n - a)) return true;
    }
  }
  return false;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
