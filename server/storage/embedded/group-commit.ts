// The embedded store's write queue and compaction. Writes to one store are applied one at a
// time, in the order they were called; single-document writes that arrive while the queue is
// busy are committed together (one append for the batch, see `batched`). The file is compacted
// on a timer, after many superseded lines, or when it has grown well past its compacted size.
import { rm } from 'node:fs/promises';
import { StoreUnavailableError, UniqueViolationError, UnstorableValueError } from '../errors.js';
import { StorageFailure } from '../../core/errors.js';
import type { Doc } from '../query.js';
import { KeyNameError } from '../field-names.js';
import { compactText } from './datafile.js';
import { ReadableStore } from './reads.js';
import { fullEventLine, type KeptEvents } from './kept-events.js';
import type { BusEvent } from '../../core/bus.js';
import { logger } from '../../core/logger.js';

const DEFAULT_COMPACT_MS = 10 * 60 * 1000;
/** Compact early once the file holds this many superseded lines beyond the live documents. */
const COMPACT_AFTER_WRITES = 20_000;
/** ... or once it has grown by this much plus its size after the last compaction (large
 *  documents, such as webhook deliveries, rewritten a few times). The lines of kept events and
 *  their settled marks are not counted: each write's event is settled within moments and gone
 *  at the next compaction, and counting them (about as long as a record's line) made a store
 *  under steady writes rewrite its whole file twice as often as before events were kept. */
const COMPACT_AFTER_GROWTH = 8 * 1024 * 1024;
/** Settled events are marked so in the file this long after (many in one line). */
const SETTLE_FLUSH_MS = 50;

export class GroupCommitStore extends ReadableStore {
  /** Set by the workspace's stores when events are kept (kept-events.ts): where they are held,
   *  and this store's name in the workspace's list. */
  kept: { events: KeptEvents; name: string } | undefined;
  /** Events in the file not settled yet (written again by a compaction). */
  protected pendingEvents = new Map<string, BusEvent>();
  /** Those the file had at load, for the start to publish again (taken once). */
  protected loadedEvents: BusEvent[] = [];
  private settledIds: string[] = [];
  /** Characters of event lines and settled marks appended since the last compaction. */
  private eventChars = 0;
  private settleTimer: NodeJS.Timeout | undefined;

  /** Will a write with `event` keep it in the file? Lists the store first when it must. */
  protected keepsEvent(event: BusEvent | undefined): Promise<void> | boolean {
    if (!event || !this.file || !this.kept?.events.enabled) return false;
    return this.kept.events.list(this.kept.name) ?? true;
  }

  /** The append holding `event` succeeded: it is held until settled. */
  protected eventKept(event: BusEvent): void {
    this.pendingEvents.set(event.id, event);
    this.kept?.events.held(event.id, this);
    event.outboxed = true;
  }

  /** The events the file held unsettled at load (once). */
  takeLoadedEvents(): BusEvent[] {
    const out = this.loadedEvents;
    this.loadedEvents = [];
    return out;
  }

  /** Does the file hold events not settled yet? */
  get holdsEvents(): boolean { return this.pendingEvents.size > 0; }

  /** The event is settled: marked so in the file a moment later (with the others of that moment). */
  settleEvent(id: string): void {
    if (!this.pendingEvents.delete(id)) return;
    this.settledIds.push(id);
    if (!this.settleTimer && !this.closed) {
      this.settleTimer = setTimeout(() => void this.flushSettled(), SETTLE_FLUSH_MS);
      this.settleTimer.unref();
    }
  }

  /** Appends the settled marks waiting, in the write queue (not a write: readers' memos stay).
   *  Not while the file shares its inode with a fork's (the marks would make it this store's own
   *  copy): they then go with the store's next write. */
  protected flushSettled(): Promise<void> {
    if (this.settleTimer) { clearTimeout(this.settleTimer); this.settleTimer = undefined; }
    const run = async () => {
      if (!this.settledIds.length || !this.file || this.closed || this.file.isLinked) return;
      try {
        await this.append('');
      } catch (err) {
        // Marked with the next append; meanwhile they would only be published again.
        logger.warn({ err: (err as Error).message, file: this.filename }, 'could not mark dispatched events in a store file yet');
      }
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  protected startCompactionTimer(compactEvery: number | undefined): void {
    const every = compactEvery ?? DEFAULT_COMPACT_MS;
    if (this.filename && every > 0) {
      this.timer = setInterval(() => { if (this.writesSinceCompaction > 0) void this.compact().catch(() => undefined); }, every);
      this.timer.unref();
    }
  }

  /** Rewrites the file with one line per live document (crash-safe). */
  async compact(): Promise<void> {
    if (!this.file || this.closed) return;
    await this.write(() => this.compactNow());
  }

  /** Waits for queued writes, compacts when the store was written since its last compaction,
   *  and stops the timer. Rejects (with a storage error) if the compaction fails: every write
   *  already acknowledged is in the file anyway; the store is closed either way. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.timer) clearInterval(this.timer);
    await this.flushSettled();
    try {
      // Nothing appended since the load (or last compaction): the file is already compact, and
      // rewriting 100,000 records would only slow the shutdown.
      if (this.file && this.writesSinceCompaction > 0) await this.write(() => this.compactNow());
      else await this.queue;
    } finally {
      this.closed = true;
      this.orders.clear();
    }
  }

  /** Stops using the store without touching its file (a swap replaced or removed the file):
   *  waits for queued writes, stops the timer; later writes are refused. */
  async detach(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.settleTimer) clearTimeout(this.settleTimer);
    await this.queue;
    this.closed = true;
    this.orders.clear();
  }

  /** Closes the store and deletes its file. */
  async drop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.settleTimer) clearTimeout(this.settleTimer);
    await this.queue;
    this.closed = true;
    this.orders.clear();
    if (this.filename) await rm(this.filename, { force: true });
  }

  /** Appends lines to the file (with the header lines still owed, see `header`). */
  protected async append(text: string): Promise<void> {
    if (!this.file) return;
    // The settled marks waiting go with it.
    const ids = this.settledIds.length ? this.settledIds.splice(0) : undefined;
    const marks = ids ? `${JSON.stringify({ $$settled: ids })}\n` : '';
    try {
      await this.file.append(this.header + text + marks);
    } catch (err) {
      if (ids) this.settledIds.unshift(...ids);
      throw err;
    }
    this.eventChars += marks.length;
    this.header = '';
  }

  protected async compactNow(): Promise<void> {
    if (!this.file) return;
    // The events not settled yet stay (their data whole); the settled ones' marks are not needed.
    let events = '';
    for (const e of this.pendingEvents.values()) events += fullEventLine(e);
    const marked = this.settledIds.length; // settled before: their events are not in the new file
    await this.file.rewrite(compactText(this.all(), this.indexSpecs()) + events);
    this.settledIds.splice(0, marked);
    this.header = '';
    this.eventChars = 0;
    this.writesSinceCompaction = 0;
    this.compactedBytes = this.file.bytes;
  }

  /** Runs a write alone in the store's queue; nedb's errors become API errors. Writes asked
   *  for after it never join a batch queued before it. */
  protected write<T>(op: () => Promise<T>): Promise<T> {
    this.batch = undefined;
    return this.enqueue(op);
  }

  /** Group commit of single-document writes (insert, replace, remove). Writes that arrive while
   *  the queue is busy (another batch's append under way) wait in one batch; at its turn the
   *  batch is checked in one synchronous step, each write against the store as the writes
   *  before it in the batch leave it (applied for the check and taken back in the same tick,
   *  so no reader sees them), then its lines are appended in one write, and only once that
   *  succeeded is each applied in memory and answered, in order. A write refused by the check
   *  fails alone; a failed append fails every write of the batch and applies none. Each write
   *  is answered only after its own line is in the file, as before (docs/storage-layout.md). */
  protected batched<T>(stage: (batch: BatchView) => StagedWrite<T>): Promise<T> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('The store is closed'));
    let batch = this.batch;
    if (!batch) {
      const mine: BatchedWrite[] = [];
      batch = this.batch = mine;
      void this.enqueue(() => {
        if (this.batch === mine) this.batch = undefined; // later writes form the next batch
        return this.commit(mine);
      }).catch((err) => { for (const w of mine) w.reject(err); });
    }
    return new Promise<T>((resolve, reject) => {
      batch.push({ stage: stage as (batch: BatchView) => StagedWrite<unknown>, resolve: resolve as (v: unknown) => void, reject });
    });
  }

  protected async commit(batch: BatchedWrite[]): Promise<void> {
    const staged: Array<{ w: BatchedWrite; s: StagedWrite<unknown> }> = [];
    const trialled: Array<() => void> = [];
    // The documents as the writes before in the batch leave them (undefined: removed). With
    // unique indexes besides _id, the writes before are also applied to the indexes (a trial,
    // taken back below), so that each write is checked against them; the last needs only the
    // check.
    const pending = new Map<string, Doc | undefined>();
    const unique = Object.entries(this.engine.indexes).some(([k, i]) => i.unique && k !== '_id');
    const view: BatchView = {
      trial: false,
      get: (id) => (pending.has(id) ? pending.get(id) : this.get(id)),
      set: (id, doc) => { pending.set(id, doc); },
    };
    try {
      for (let i = 0; i < batch.length; i++) {
        const w = batch[i];
        view.trial = unique && i < batch.length - 1;
        try {
          const s = w.stage(view);
          staged.push({ w, s });
          if (view.trial && s.undo) trialled.push(s.undo);
        } catch (err) {
          w.reject(translateNedbError(err));
        }
      }
    } finally {
      for (let i = trialled.length - 1; i >= 0; i--) trialled[i]();
    }
    const text = staged.map(({ s }) => s.text ?? '').join('');
    if (text) {
      try {
        await this.append(text);
      } catch (err) {
        for (const { w } of staged) w.reject(err);
        return;
      }
    }
    for (const { s } of staged) { s.apply?.(); if (s.eventChars) this.eventChars += s.eventChars; }
    const lines = staged.filter(({ s }) => s.text).length;
    if (lines > 1) this.writesSinceCompaction += lines - 1; // the queue counted one
    for (const { w, s } of staged) w.resolve(s.result);
  }

  protected enqueue<T>(op: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('The store is closed'));
    const run = async () => {
      this.buildIdIndex(); // every write maintains the _id tree
      this.changed();
      try {
        const result = await op();
        if (this.file && (++this.writesSinceCompaction > Math.max(COMPACT_AFTER_WRITES, this.count)
          || this.file.bytes - this.eventChars > 2 * this.compactedBytes + COMPACT_AFTER_GROWTH)) {
          this.writesSinceCompaction = 0;
          // Queued behind this write; a failure is retried by the next trigger or the timer.
          void this.write(() => this.compactNow()).catch(() => { this.writesSinceCompaction = COMPACT_AFTER_WRITES / 2; });
        }
        return result;
      } catch (err) {
        throw translateNedbError(err);
      } finally {
        this.changed();
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }
}


/** One single-document write of a batch, worked out at its turn: the line to append, how to
 *  take back its trial application, how to apply it once the line is written, its answer.
 *  Without `text` it writes nothing (the document was gone). */
export interface StagedWrite<T> {
  text?: string;
  /** How much of `text` is the line of a kept event. */
  eventChars?: number;
  undo?: () => void;
  apply?: () => void;
  result: T;
}

/** What a batched write sees of the writes before it in its batch. */
export interface BatchView {
  /** Apply the write to the indexes for the next writes' checks (taken back with `undo`). */
  trial: boolean;
  get(id: string): Doc | undefined;
  set(id: string, doc: Doc | undefined): void;
}

export interface BatchedWrite {
  stage(batch: BatchView): StagedWrite<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

export function uniqueViolated(key: unknown): Error {
  return Object.assign(new Error(`Can't insert key ${String(key)}, it violates the unique constraint`), { errorType: 'uniqueViolated', key });
}

export function translateNedbError(err: unknown): unknown {
  if (err instanceof StorageFailure) return err;
  const e = err as { errorType?: string; key?: unknown; message?: string };
  if (e?.errorType === 'uniqueViolated') {
    return new UniqueViolationError('A unique constraint was violated', { value: e.key as string });
  }
  if (err instanceof KeyNameError) return new UnstorableValueError('', 'format', err.message);
  // nedb's own wording, should a path of its own still check a key.
  if (typeof e?.message === 'string' && /Field names cannot (begin with the \$ character|contain a \.)/.test(e.message)) {
    return new UnstorableValueError('', 'format', "Field names may not start with '$', contain '.' or be '__proto__'");
  }
  return err;
}
