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

export function runQuery(engine: NedbEngine, totalDocs: number, q: StoreQuery): QueryResult {
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
  const rest = covered ? q.conditions.filter((c) => c !== covered) : q.conditions;
  const matchRest = compileMatcher(rest);
  const matchAll = compileMatcher(q.conditions);
  const candidateCount = candidates ? candidates.length : totalDocs;
  const pool = () => candidates ?? (engine.getAllData() as Doc[]);

  const countMatches = () => {
    if (rest.length === 0) return candidateCount;
    let n = 0;
    for (const d of pool()) if (matchRest(d)) n++;
    return n;
  };

  if (q.limit === 0) return { data: [], total: countMatches() };

  const sortIndex = orderedIndex(engine, sort[0].path);
  const cmp = comparator(sort);
  let page: Doc[];
  let total: number;
  if (sortIndex && candidateCount > SCAN_THRESHOLD && want <= candidateCount) {
    page = scanInOrder(sortIndex, sort, matchAll, want);
    total = countMatches();
  } else {
    ({ page, total } = selectTop(pool(), rest.length ? matchRest : null, sort, want, cmp));
  }
  page = page.slice(q.offset);
  return { data: q.fields ? page.map((d) => project(d, q.fields!)) : page, total };
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
 *  remaining sort keys, then id, and only as many as still needed are kept. */
function scanInOrder(index: NedbIndex, sort: SortKey[], match: (d: Doc) => boolean, want: number): Doc[] {
  const out: Doc[] = [];
  const tieCmp = comparator(sort.slice(1));
  const descending = sort[0].dir === -1;
  const stack: AvlNode[] = [];
  let node: AvlNode | null | undefined = Object.prototype.hasOwnProperty.call(index.tree.tree, 'key') ? index.tree.tree : null;
  while ((node || stack.length) && out.length < want) {
    while (node) { stack.push(node); node = descending ? node.right : node.left; }
    const current = stack.pop()!;
    const data = current.data as Doc[];
    if (data.length === 1) {
      if (match(data[0])) out.push(data[0]);
    } else {
      const hits: Doc[] = [];
      for (const d of data) if (match(d)) hits.push(d);
      for (const d of topK(hits, tieCmp, want - out.length)) out.push(d);
    }
    node = descending ? current.left : current.right;
  }
  return out;
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
  if (k > SELECT_MAX || sort.length === 0) {
    const matched = match ? pool.filter(match) : pool.slice();
    return { page: k >= matched.length ? matched.sort(cmp) : topK(matched, cmp, k), total: matched.length };
  }
  const { path, dir } = sort[0];
  const read = fieldReader(path);
  const docs: Doc[] = [];
  const keys: unknown[] = [];
  let worstDoc: Doc | undefined;
  let worstKey: unknown;
  let total = 0;
  for (let i = 0; i < pool.length; i++) {
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
  if (docs.length <= k * 4 || k > 1000) return docs.sort(cmp).slice(0, k);
  const best: Doc[] = [];
  for (const d of docs) {
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
  const matched = docs.filter(compileMatcher(q.conditions));
  const sort = q.sort.length ? q.sort : defaultSort;
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

export function compileMatcher(conditions: Condition[]): (doc: Doc) => boolean {
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
      return (d) => equalsAny(get(d), values);
    }
    case '$ne': case '$nin': return (d) => !equalsAny(get(d), values);
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
