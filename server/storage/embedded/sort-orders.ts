// Sort orders kept in memory for fields that have no index. A list of a big collection sorted on
// such a field otherwise reads the sort value of every candidate to keep the best offset + limit
// (a top-k pass over tens of thousands of records, memory-bound: ~5-10 ms at 100,000 records), or
// sorts every match for a deep page. A sort order is every document of the store in the order
// (value of the field, then `_id`), beside the values themselves: a list walks it in its
// direction and stops at the offset + limit-th match, so it reads about offset + limit divided by
// the share of records that match. Like an index, but never written to the file nor listed:
//  - made when a list of a store of at least ORDER_FROM documents would otherwise pass over at
//    least ORDER_FROM_CANDIDATES candidates sorted on the field, built in the background a slice
//    of the event loop at a time (that list, and those until it is ready, answer the old way;
//    a list that needs the whole order, a deep page, drives the build itself);
//  - kept up to date from the store's index maintenance: every document added to or removed
//    from the indexes goes in or out of each order at once (a binary search and a splice within
//    a block of about BLOCK entries: a few microseconds); changes made while an order is being
//    built are noted and applied once it is;
//  - at most ORDERS_MAX orders per store, the one used least recently dropped first: memory is
//    bounded by ORDERS_MAX × 16 bytes × documents (two arrays of references), ~6.4 MB per store
//    of 100,000 documents, plus while building a log of at most LOG_MAX changes.
// Stored documents are never mutated (a write puts a new object), so an order read by a list
// that pauses stays valid: changes made meanwhile go to copies of the blocks they change.
import model from '@seald-io/nedb/lib/model.js';
import type { Doc, SortKey } from '../../shared/query.js';
import type { NedbEngine } from './nedb-types.js';
import { comparator, topKNow } from '../query-sort.js';
import { CHUNK, SLICE_MS, type Steps } from '../query-steps.js';

const compareThings = model.compareThings as (a: unknown, b: unknown) => number;

/** Stores smaller than this never keep sort orders (a pass over all is cheap). */
export const ORDER_FROM = 5_000;
/** A sort order is made once a list would pass over at least this many candidates. */
export const ORDER_FROM_CANDIDATES = 2_000;
/** Sort orders kept per store. */
export const ORDERS_MAX = 4;
/** Changes noted while an order is being built; past this many, the build is given up (it is
 *  tried again by a later list). */
export const LOG_MAX = 16_384;
/** Build work between looks at the clock (documents read or merged). */
const BUILD_CHUNK = 8_192;

/** What an order needs of its store. */
export interface OrderSource {
  /** Every document now, in steps (query.ts: allDocs). */
  allDocs(): Steps<Doc[]>;
  /** A document's value at a path (query.ts: getPath). */
  getPath(doc: Doc, path: string): unknown;
}

/** Compares two values of a field as nedb orders them (compareThings), numbers with numbers
 *  and strings with strings inline. */
function compareKeys(a: unknown, b: unknown): number {
  const ta = typeof a;
  if (ta === typeof b && (ta === 'string' || ta === 'number')) return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  return compareThings(a, b);
}

const compareIds = (a: Doc, b: Doc): number => (a._id! < b._id! ? -1 : a._id! > b._id! ? 1 : 0);

/** Entries per block of an order: a change moves at most 2 × BLOCK references. */
const BLOCK = 1_024;

/** A run of an order: `docs` sorted by (value, `_id`), `keys[i]` the value of `docs[i]`.
 *  `epoch`: the order's epoch it was made in (changed in place only within it). */
interface Block { docs: Doc[]; keys: unknown[]; epoch: number }

const NONE = Symbol('none');

/** One field's order, in blocks of about BLOCK entries (a change is a binary search and a splice
 *  within one block). A list that pauses keeps reading the blocks of when it started: once one
 *  has paused, the next change starts a new epoch, and blocks of an older epoch (and the list of
 *  blocks) are copied before they change. */
export class SortOrder {
  blocks: Block[] = [];
  ready = false;
  /** Dropped (evicted, or its store's content replaced): never ready. */
  dead = false;
  /** A list read the blocks and paused. */
  shared = false;
  lastUsed = 0;
  private epoch = 0;
  private blocksEpoch = 0;
  /** Changes noted while the order is being built, applied once it is. */
  private log: Array<{ doc: Doc; add: boolean }> = [];
  private build: Steps<void> | undefined;
  private scheduled = false;

  constructor(readonly path: string, private readonly source: OrderSource) {
    this.build = this.buildSteps();
  }

  /** Notes a document added to (true) or removed from (false) the store. */
  note(doc: Doc, add: boolean): void {
    if (this.dead) return;
    if (this.ready) { this.change(doc, add); return; }
    this.log.push({ doc, add });
    if (this.log.length > LOG_MAX) { this.dead = true; this.log = []; } // writes outpace the build: drop it
  }

  /** One chunk of the build; true once it is over (ready, or dead). */
  advance(): boolean {
    if (this.ready || this.dead) return true;
    if (this.build!.next().done) {
      this.build = undefined;
      this.ready = true;
      for (const { doc, add } of this.log) this.change(doc, add);
      this.log = [];
    }
    return this.ready || this.dead;
  }

  /** Builds in the background, a slice of the event loop at a time. */
  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const turn = () => {
      const end = performance.now() + SLICE_MS;
      while (!this.advance()) if (performance.now() >= end) { setImmediate(turn).unref(); return; }
    };
    setImmediate(turn).unref();
  }

  /** Notes a document replaced by its next version (same `_id`). A version whose value of the
   *  field is unchanged (the common update: the order's field is not the one written) takes the
   *  old one's place: one search, no entries moved. */
  replaced(oldDoc: Doc, newDoc: Doc): void {
    if (this.dead) return;
    if (this.ready && this.blocks.length && oldDoc._id === newDoc._id) {
      const oldKey = this.source.getPath(oldDoc, this.path);
      const newKey = this.source.getPath(newDoc, this.path);
      if (compareKeys(oldKey, newKey) === 0) {
        const { b, i } = this.locate(oldDoc, oldKey);
        if (this.blocks[b].docs[i] === oldDoc) {
          this.writable();
          const block = this.own(b);
          block.docs[i] = newDoc;
          block.keys[i] = newKey;
          return;
        }
      }
    }
    this.note(oldDoc, false);
    this.note(newDoc, true);
  }

  /** Where a document with value `key` is or would go: the first block whose last entry is not
   *  before it (else the last block), then the first position in it whose entry is not before
   *  it. Needs at least one block. */
  private locate(doc: Doc, key: unknown): { b: number; i: number } {
    const blocks = this.blocks;
    let lo = 0, hi = blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const b = blocks[mid];
      const last = b.docs.length - 1;
      if ((compareKeys(b.keys[last], key) || compareIds(b.docs[last], doc)) < 0) lo = mid + 1; else hi = mid;
    }
    const found = blocks[lo];
    let i = 0, j = found.docs.length;
    while (i < j) {
      const mid = (i + j) >> 1;
      if ((compareKeys(found.keys[mid], key) || compareIds(found.docs[mid], doc)) < 0) i = mid + 1; else j = mid;
    }
    return { b: lo, i };
  }

  /** Puts a document in (add) or takes it out of the order; a no-op when it already is / is not. */
  private change(doc: Doc, add: boolean): void {
    const key = this.source.getPath(doc, this.path);
    const blocks = this.blocks;
    if (blocks.length === 0) {
      if (add) { this.writable(); this.blocks.push({ docs: [doc], keys: [key], epoch: this.epoch }); }
      return;
    }
    const { b: lo, i } = this.locate(doc, key);
    const found = blocks[lo];
    const present = found.docs[i] === doc;
    if (add === present) return;
    this.writable();
    const b = this.own(lo);
    if (add) {
      b.docs.splice(i, 0, doc);
      b.keys.splice(i, 0, key);
      if (b.docs.length >= 2 * BLOCK) {
        const half = b.docs.length >> 1;
        this.blocks.splice(lo, 1, { docs: b.docs.slice(0, half), keys: b.keys.slice(0, half), epoch: this.epoch },
          { docs: b.docs.slice(half), keys: b.keys.slice(half), epoch: this.epoch });
      }
    } else {
      b.docs.splice(i, 1);
      b.keys.splice(i, 1);
      if (b.docs.length === 0 && this.blocks.length > 1) this.blocks.splice(lo, 1);
    }
  }

  /** Before a change: a new epoch if a list paused on the blocks, and a list of blocks of its own. */
  private writable(): void {
    if (this.shared) { this.epoch++; this.shared = false; }
    if (this.blocksEpoch !== this.epoch) { this.blocks = this.blocks.slice(); this.blocksEpoch = this.epoch; }
  }

  /** Block `i`, copied first unless made in this epoch. */
  private own(i: number): Block {
    const b = this.blocks[i];
    if (b.epoch === this.epoch) return b;
    const copy = { docs: b.docs.slice(), keys: b.keys.slice(), epoch: this.epoch };
    this.blocks[i] = copy;
    return copy;
  }

  /** Every document of the moment the build starts (changes from then on are noted in the log),
   *  its values read, sorted by a merge sort whose passes pause between chunks. */
  private *buildSteps(): Steps<void> {
    const docs = yield* this.source.allDocs();
    const n = docs.length;
    const keys: unknown[] = new Array(n);
    for (let from = 0; from < n; from += BUILD_CHUNK) {
      if (from > 0) yield;
      for (let i = from; i < Math.min(n, from + BUILD_CHUNK); i++) keys[i] = this.source.getPath(docs[i], this.path);
    }
    const cmp = (a: number, b: number) => compareKeys(keys[a], keys[b]) || compareIds(docs[a], docs[b]);
    let order: number[] = new Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    const RUN = 1_024;
    for (let from = 0; from < n; from += RUN) {
      const run = order.slice(from, Math.min(n, from + RUN)).sort(cmp);
      for (let i = 0; i < run.length; i++) order[from + i] = run[i];
      if ((from / RUN) % 8 === 7) yield;
    }
    let other: number[] = new Array(n);
    for (let width = RUN; width < n; width *= 2) {
      for (let lo = 0; lo < n; lo += 2 * width) {
        const mid = Math.min(n, lo + width), hi = Math.min(n, lo + 2 * width);
        let i = lo, j = mid, o = lo;
        while (o < hi) {
          const stop = Math.min(hi, o + BUILD_CHUNK);
          while (o < stop) other[o++] = j >= hi || (i < mid && cmp(order[i], order[j]) <= 0) ? order[i++] : order[j++];
          if (o < hi) yield;
        }
      }
      [order, other] = [other, order];
      yield;
    }
    const blocks: Block[] = [];
    for (let from = 0; from < n; from += BLOCK) {
      const to = Math.min(n, from + BLOCK);
      const b: Block = { docs: new Array(to - from), keys: new Array(to - from), epoch: this.epoch };
      for (let i = from; i < to; i++) { b.docs[i - from] = docs[order[i]]; b.keys[i - from] = keys[order[i]]; }
      blocks.push(b);
    }
    this.blocks = blocks;
    this.blocksEpoch = this.epoch;
  }
}

/** The first `want` matches of `match` in `sort` order, read from an order of the sort's first
 *  field in the sort's direction; the first `skip` of them are counted, not kept. Documents with
 *  equal values (compareThings) are ordered by the rest of the sort, then id, as
 *  comparator(sort) does. Reads the blocks of when it starts, whatever changes meanwhile. */
export function* walkOrder(order: SortOrder, sort: SortKey[], match: (d: Doc) => boolean, want: number, skip: number): Steps<Doc[]> {
  const blocks = order.blocks;
  const back = sort[0].dir === -1;
  const w: OrderWalk = {
    blocks, match, want, skip, found: 0, out: [], step: back ? -1 : 1,
    b: back ? blocks.length - 1 : 0, i: back && blocks.length ? blocks[blocks.length - 1].docs.length - 1 : 0,
    tieCmp: comparator(sort.slice(1)), sortedTies: sort.length === 1 && !back,
  };
  while (orderChunk(w)) { order.shared = true; yield; }
  return w.out;
}

interface OrderWalk {
  blocks: Block[]; match: (d: Doc) => boolean; want: number;
  /** Matches counted but not kept (the offset); `found` counts every match so far. */
  skip: number; found: number; out: Doc[];
  /** 1 forward, -1 backward; the next position is entry `i` of block `b`. */
  step: 1 | -1; b: number; i: number;
  tieCmp: (a: Doc, b: Doc) => number;
  /** Equal values come in the order wanted already (forward, one sort key: by id). */
  sortedTies: boolean;
}

/** Moves a walk's position one entry on; false past the end. */
function stepOn(w: { blocks: Block[]; step: 1 | -1; b: number; i: number }): boolean {
  w.i += w.step;
  const block = w.blocks[w.b];
  if (w.i >= 0 && w.i < block.docs.length) return true;
  w.b += w.step;
  if (w.b < 0 || w.b >= w.blocks.length) return false;
  w.i = w.step === 1 ? 0 : w.blocks[w.b].docs.length - 1;
  return w.blocks[w.b].docs.length > 0;
}

/** walkOrder's walk for about CHUNK entries; true while there is more to read. */
function orderChunk(w: OrderWalk): boolean {
  const { blocks, match, out, want, skip } = w;
  if (w.b < 0 || w.b >= blocks.length || w.i < 0 || w.i >= blocks[w.b].docs.length) return false;
  let work = 0;
  while (w.found < want) {
    const block = blocks[w.b];
    const doc = block.docs[w.i];
    const key = block.keys[w.i];
    // The next entry's value, when it is in the same block (the common case), decides whether
    // this value is held by one document.
    const ni = w.i + w.step;
    const nextKey = ni >= 0 && ni < block.docs.length ? block.keys[ni] : peekKey(w);
    if (nextKey === NONE || !sameKey(nextKey, key)) {
      if (match(doc) && w.found++ >= skip) out.push(doc);
      work++;
      if (!stepOn(w)) return false;
    } else {
      const hits: Doc[] = [];
      let more = true;
      while (more) {
        const b = blocks[w.b];
        if (!sameKey(b.keys[w.i], key)) break;
        if (match(b.docs[w.i])) hits.push(b.docs[w.i]);
        work++;
        more = stepOn(w);
      }
      if (w.found + hits.length <= skip) w.found += hits.length; // all before the page
      else {
        const top = w.sortedTies ? hits.slice(0, want - w.found) : topKNow(hits, w.tieCmp, want - w.found);
        for (let t = 0; t < top.length; t++) if (w.found++ >= skip) out.push(top[t]);
      }
      if (!more) return false;
    }
    if (work >= CHUNK) return w.found < want;
  }
  return false;
}

/** The value of the entry after a walk's position when it is in the next block. */
function peekKey(w: OrderWalk): unknown {
  const nb = w.b + w.step;
  if (nb < 0 || nb >= w.blocks.length) return NONE;
  const b = w.blocks[nb];
  if (b.docs.length === 0) return NONE;
  return b.keys[w.step === 1 ? 0 : b.docs.length - 1];
}

function sameKey(a: unknown, b: unknown): boolean {
  return a === b || ((typeof a === 'object' || typeof b === 'object') && compareThings(a, b) === 0);
}

/** A store's sort orders, by field path. */
export class SortOrders {
  private readonly orders = new Map<string, SortOrder>();
  private clock = 0;

  /** The store size and candidate count from which orders are made (ORDER_FROM and
   *  ORDER_FROM_CANDIDATES unless set: tests make them on small stores). */
  from: number | undefined;

  constructor(private readonly source: OrderSource) {}

  /** The order to answer a list sorted on `path` by, when walking it costs less than passing
   *  over the candidates: ready, or (`drive`) being built for the caller to finish. Starts a
   *  background build when one would be worth it. `trivial`: the list has no condition at all
   *  (a walk then reads no document). */
  forList(path: string, size: number, candidates: number, want: number, trivial: boolean, sortAll: boolean): { order: SortOrder; drive: boolean } | undefined {
    if (size < (this.from ?? ORDER_FROM) || candidates < (this.from ?? ORDER_FROM_CANDIDATES)) return undefined;
    // Expected documents a walk reads: `want` matches at the candidates' share of the store.
    const visits = Math.min(size, Math.ceil(want * size / Math.max(1, candidates)));
    const walkCost = trivial ? visits / 8 : visits;
    const passCost = sortAll ? candidates * 8 : candidates;
    if (walkCost * 2 > passCost) return undefined;
    let order = this.orders.get(path);
    if (order?.dead) { this.orders.delete(path); order = undefined; }
    if (!order) {
      if (this.orders.size >= ORDERS_MAX) {
        let oldest: SortOrder | undefined;
        for (const o of this.orders.values()) if (!oldest || o.lastUsed < oldest.lastUsed) oldest = o;
        this.orders.delete(oldest!.path);
        oldest!.dead = true;
      }
      order = new SortOrder(path, this.source);
      this.orders.set(path, order);
    }
    order.lastUsed = ++this.clock;
    if (order.ready) return { order, drive: false };
    if (sortAll) return { order, drive: true };
    order.schedule();
    return undefined;
  }

  /** Notes documents added to or removed from the store. */
  added(doc: unknown): void { if (this.orders.size) for (const o of this.orders.values()) o.note(doc as Doc, true); }
  removed(doc: unknown): void { if (this.orders.size) for (const o of this.orders.values()) o.note(doc as Doc, false); }

  /** Drops every order (the store's content was replaced wholesale, or it closed). */
  clear(): void { for (const o of this.orders.values()) o.dead = true; this.orders.clear(); }

  /** The fields with an order and whether it is ready (tests). */
  get states(): Array<{ path: string; ready: boolean }> { return [...this.orders.values()].map((o) => ({ path: o.path, ready: o.ready })); }

  /** Maintains the orders from the engine's index maintenance: every change of the documents in
   *  memory goes through these three methods (writes, their trial runs and undoing them). */
  watch(engine: NedbEngine): void {
    const add = engine._addToIndexes.bind(engine);
    const remove = engine._removeFromIndexes.bind(engine);
    const update = engine._updateIndexes.bind(engine);
    engine._addToIndexes = (doc) => { add(doc); this.added(doc); };
    engine._removeFromIndexes = (doc) => { remove(doc); this.removed(doc); };
    engine._updateIndexes = (pairs) => {
      update(pairs);
      if (this.orders.size) for (const { oldDoc, newDoc } of pairs) for (const o of this.orders.values()) o.replaced(oldDoc as Doc, newDoc as Doc);
    };
  }
}
