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

/** Work (documents visited, values compared or moved) between two looks at the clock. */
const STEP = 1024;
/** A query that has run this long gives the event loop a turn before it goes on, so that no
 *  list request holds the server for longer (other requests, health checks, timers and
 *  sockets are served in between). */
export const SLICE_MS = 8;

/** The steps of a query: a generator that yields every STEP units of work or so. */
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

export function* querySteps(engine: NedbEngine, totalDocs: number, q: StoreQuery): Steps<QueryResult> {
  const sort = q.sort.length ? q.sort : DEFAULT_SORT;
  const want = q.offset + q.limit;

  // 1. The narrowest equality bucket among indexed conditions.
  let candidates: Doc[] | null = null;
  let covered: Condition | null = null;
  for (const c of q.conditions) {
    if (c.op !== '$eq' && c.op !== '$in') continue;
    const index = singleIndex(engine, c.path);
    if (!index || c.values.some(isObjectLike)) continue;
    const bucket = index.getMatching(c.values.length === 1 ? c.values[0] : c.values) as Doc[];
    if (!candidates || bucket.length < candidates.length) { candidates = bucket; covered = c; }
  }
  // A bucket is the index's own array, changed in place by writes: a walk that may pause keeps a copy.
  if (candidates && candidates.length > STEP) candidates = candidates.slice();
  const rest = covered ? q.conditions.filter((c) => c !== covered) : q.conditions;
  const matchRest = compileMatcher(rest, q.or);
  const matchAll = compileMatcher(q.conditions, q.or);
  const candidateCount = candidates ? candidates.length : totalDocs;
  let all: Doc[] | undefined;
  const pool = () => candidates ?? (all ??= engine.getAllData() as Doc[]);

  function* countMatches(): Steps<number> {
    if (rest.length === 0 && !q.or?.length) return candidateCount;
    return yield* countIn(pool(), matchRest);
  }

  if (q.limit === 0) return { data: [], total: yield* countMatches() };

  if (q.window) {
    // Keyset paging: read limit + 1 from the window's position on (walking the first key's
    // index from that position when it has one), so a page deep in the list costs what the first does.
    const keys = windowKeys(sort, q.window.backward);
    const position = q.window.seek;
    const after = position ? afterPosition(keys, position) : null;
    const index = orderedIndex(engine, keys[0].path);
    const read = index && candidateCount > SCAN_THRESHOLD
      ? yield* scanInOrder(index, keys, after ? (d) => matchAll(d) && after(d) : matchAll, q.offset + q.limit + 1, position ? { key: position[0] } : undefined)
      : (yield* selectTopSteps(pool(), after ? (d) => matchRest(d) && after(d) : (rest.length || q.or?.length ? matchRest : null), keys, q.offset + q.limit + 1, comparator(keys))).page;
    const windowPage = finishWindow(q, keys, read.slice(q.offset));
    return { data: q.fields ? windowPage.map((d) => project(d, q.fields!)) : windowPage, total: yield* countMatches() };
  }

  const sortIndex = orderedIndex(engine, sort[0].path);
  const cmp = comparator(sort);
  let page: Doc[];
  let total: number;
  if (sortIndex && candidateCount > SCAN_THRESHOLD && want <= candidateCount) {
    page = yield* scanInOrder(sortIndex, sort, matchAll, want);
    total = yield* countMatches();
  } else {
    ({ page, total } = yield* selectTopSteps(pool(), rest.length || q.or?.length ? matchRest : null, sort, want, cmp));
  }
  page = page.slice(q.offset);
  return { data: q.fields ? page.map((d) => project(d, q.fields!)) : page, total };
}

function* countIn(pool: readonly Doc[], match: (d: Doc) => boolean): Steps<number> {
  let n = 0;
  for (let i = 0; i < pool.length; i++) {
    if (match(pool[i])) n++;
    if ((i & (STEP - 1)) === STEP - 1) yield;
  }
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
 *  remaining sort keys, then id, and only as many as still needed are kept. Pauses only between
 *  keys; after a pause it finds its place again from the root (writes may have reshaped the
 *  tree), just after the last key it finished. */
function* scanInOrder(index: NedbIndex, sort: SortKey[], match: (d: Doc) => boolean, want: number, from?: { key: unknown }): Steps<Doc[]> {
  const out: Doc[] = [];
  const tieCmp = comparator(sort.slice(1));
  const descending = sort[0].dir === -1;
  // From the start, or (a keyset window) from the first key not before `from.key`.
  let stack = from ? seek(index, descending, true, from.key, true) : seek(index, descending, false, undefined);
  let work = 0;
  while (stack.length && out.length < want) {
    const current = stack.pop()!;
    for (let node = descending ? current.left : current.right; node; node = descending ? node.right : node.left) stack.push(node);
    const data = current.data as Doc[];
    if (data.length === 1) {
      if (match(data[0])) out.push(data[0]);
      work++;
    } else {
      const hits: Doc[] = [];
      for (const d of data) if (match(d)) hits.push(d);
      work += data.length;
      for (const d of yield* sortedTop(hits, tieCmp, want - out.length)) out.push(d);
    }
    if (work >= STEP) {
      work = 0;
      yield;
      stack = seek(index, descending, true, current.key);
    }
  }
  return out;
}

/** The in-order walk's stack positioned at the first key of the index (`after` false), or at
 *  the first key strictly after `key` in the walk's direction (with `inclusive`, at `key`
 *  itself when the index holds it); its top is the next node. */
function seek(index: NedbIndex, descending: boolean, after: boolean, key: unknown, inclusive = false): AvlNode[] {
  const stack: AvlNode[] = [];
  const root = index.tree.tree;
  if (!Object.prototype.hasOwnProperty.call(root, 'key')) return stack;
  for (let node: AvlNode | null | undefined = root; node;) {
    const c = after ? compareThings(node.key, key) * (descending ? -1 : 1) : 1;
    if (c > 0 || (inclusive && c === 0)) { stack.push(node); node = descending ? node.right : node.left; }
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
      for (let i = 0; i < pool.length; i++) {
        if (match(pool[i])) matched.push(pool[i]);
        if ((i & (STEP - 1)) === STEP - 1) yield;
      }
    } else {
      matched = pool.slice();
    }
    return { page: yield* sortedTop(matched, cmp, k), total: matched.length };
  }
  const { path, dir } = sort[0];
  const read = fieldReader(path);
  const docs: Doc[] = [];
  const keys: unknown[] = [];
  let worstDoc: Doc | undefined;
  let worstKey: unknown;
  let total = 0;
  for (let i = 0; i < pool.length; i++) {
    if ((i & (STEP - 1)) === STEP - 1) yield;
    const d = pool[i];
    if (match !== null && !match(d)) continue;
    total++;
    if (k === 0) continue;
    const v = read(d);
    if (docs.length === k) {
      const c = (typeof v === 'number' && typeof worstKey === 'number') || (typeof v === 'string' && typeof worstKey === 'string')
        ? (v < worstKey ? -1 : v > worstKey ? 1 : 0) : compareThings(v, worstKey);
      if (c * dir > 0 || (c === 0 && cmp(d, worstDoc!) >= 0)) continue;
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
    worstDoc = docs[docs.length - 1];
    worstKey = keys[keys.length - 1];
  }
  return { page: docs, total };
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

/** Sorted runs of this many documents are merged (sortedTop). */
const RUN = 2048;

/** The first `k` of `docs` (an array of the caller's, reordered) in `cmp` order, in steps: a
 *  small sorted buffer when k is small against the documents; otherwise runs of RUN sorted one
 *  at a time, each cut to k, then merged two by two (each merge cut to k too). */
function* sortedTop(docs: Doc[], cmp: (a: Doc, b: Doc) => number, k: number): Steps<Doc[]> {
  if (docs.length <= RUN) return docs.length <= k ? docs.sort(cmp) : docs.sort(cmp).slice(0, k);
  if (docs.length > k * 4 && k <= SELECT_MAX) {
    const best: Doc[] = [];
    for (let i = 0; i < docs.length; i++) {
      if ((i & (STEP - 1)) === STEP - 1) yield;
      const d = docs[i];
      if (best.length === k) {
        if (cmp(d, best[k - 1]) >= 0) continue;
        best.pop();
      }
      let lo = 0, hi = best.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (cmp(best[mid], d) <= 0) lo = mid + 1; else hi = mid; }
      best.splice(lo, 0, d);
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
      const a = runs[r], b = runs[r + 1];
      const n = Math.min(k, a.length + b.length);
      const out: Doc[] = new Array(n);
      let i = 0, j = 0;
      for (let o = 0; o < n; o++) {
        out[o] = j >= b.length || (i < a.length && cmp(a[i], b[j]) <= 0) ? a[i++] : b[j++];
        if ((o & (STEP - 1)) === STEP - 1) yield;
      }
      next.push(out);
    }
    runs = next;
  }
  return runs[0];
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
    case '$gt': return (d) => comparesAny(get(d), values, (r) => r > 0, c.kind);
    case '$gte': return (d) => comparesAny(get(d), values, (r) => r >= 0, c.kind);
    case '$lt': return (d) => comparesAny(get(d), values, (r) => r < 0, c.kind);
    case '$lte': return (d) => comparesAny(get(d), values, (r) => r <= 0, c.kind);
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
