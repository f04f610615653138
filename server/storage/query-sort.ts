// Ordering documents: the comparator of a sort (nedb's order of values, then `_id`), and the
// first k of many documents in that order without sorting them all (selectTop, sortedTop), in steps.
import model from '@seald-io/nedb/lib/model.js';
import type { Doc, SortKey } from '../shared/query.js';
import { getPath } from './doc-path.js';
import { CHUNK, runSteps, type Steps } from './query-steps.js';

const compareThings = model.compareThings;

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

/** Above this many, selectTop gathers the matches and sorts them (a sorted buffer of k costs
 *  O(k) per insertion). */
export const SELECT_MAX = 1000;

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

export function* selectTopSteps(pool: readonly Doc[], match: ((d: Doc) => boolean) | null, sort: SortKey[], k: number,
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

/** The first `k` of `docs` in `cmp` order at once, for at most RUN documents; keeps a small
 *  sorted buffer instead of sorting all. */
export function topKNow(docs: Doc[], cmp: (a: Doc, b: Doc) => number, k: number): Doc[] {
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
export const RUN = 1024;

/** The first `k` of `docs` (an array of the caller's, reordered) in `cmp` order, in steps: a
 *  small sorted buffer when k is small against the documents; otherwise runs of RUN sorted one
 *  at a time, each cut to k, then merged two by two (each merge cut to k too). */
export function* sortedTop(docs: Doc[], cmp: (a: Doc, b: Doc) => number, k: number): Steps<Doc[]> {
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
