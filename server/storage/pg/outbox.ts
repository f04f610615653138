// The outbox: an event published by a write is stored in the write's own transaction
// (homebase_outbox, one row per event, written by the same statement as the write), so a write
// is never committed without it. The process that wrote it dispatches it as it always did (its
// webhooks store the deliveries, the relay passes it to the other processes) and then deletes
// the row: by the statement of its next write (no round trip or commit of its own), or by a
// statement of its own when no write comes within a few milliseconds. If that process dies
// first (SIGKILL right after answering), a live process finds the row, claims it and dispatches the event in its stead; a row its own process could not finish
// with (the database away for long) is dispatched again after a while. Dispatching twice is
// harmless: a webhook delivery's id is made from the event and the webhook (stored once), and
// the relayed event keeps its id, which realtime clients de-duplicate on.
import type { BusEvent } from '../../core/bus.js';
import pg from 'pg';
import type { PgDatabase } from './database.js';

/** How often a process looks for events left by processes that are gone. */
export const OUTBOX_SWEEP_MS = 2000;
/** A process's own event still stored this long after it was written is dispatched again (its
 *  first dispatch failed: storing its deliveries is tried for about a minute). */
export const OUTBOX_OWN_STALE_MS = 120_000;
/** How long dispatched events' rows wait for a write to delete them in its own statement (and
 *  transaction) before a statement of their own does: under a steady write load every delete
 *  rides on a write, costing no round trip and no commit of its own. */
const RIDE_MS = 20;
/** At most this many rows are deleted by one write's statement. */
const RIDE_MAX = 200;
/** Pause before deleting dispatched events' rows is tried again. */
const FLUSH_RETRY_MS = 500;
/** Events claimed at once by a sweep. */
const CLAIM_MAX = 500;

/** The JSON text of an event as the outbox keeps it (the driver's marks left out); `dataJson`,
 *  the JSON of its data when the caller has it already (the written document). */
export function outboxText(event: BusEvent, dataJson?: string): string {
  const { outboxed: _o, recovered: _r, relayed: _rel, data, ...rest } = event;
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"data":${dataJson ?? JSON.stringify(data)}}`;
}

/** `outboxText` up to its data: the stored document's JSON follows, then `}` (a write whose
 *  document PostgreSQL makes stores its event as this head, the row's `doc::text` and `}`). */
export function outboxHead(event: BusEvent): string {
  const text = outboxText(event, '0');
  return text.slice(0, -2);
}

/** A data-modifying statement `write` (returning rows) wrapped so that, for every row it
 *  returns, the event is stored in the outbox by the same statement. Parameters of the outbox
 *  row follow `values`. */
export function withOutbox(write: string, values: unknown[], event: { id: string; workspace: string; origin: string; text: string; head?: boolean }, settled: string[] = []): { text: string; values: unknown[] } {
  const n = values.length;
  // `head`: the text is outboxHead's, completed with the written row's document.
  const text = event.head ? `$${n + 4} || w.doc::text || '}'` : `$${n + 4}`;
  // `settled`: rows of dispatched events (Outbox.take) deleted by the same statement. Always
  // there, empty or not, so that the statement's text (and its prepared plan) stays one.
  return {
    text: `WITH w AS (${write}), o AS (INSERT INTO homebase_outbox (id, workspace, origin, event) SELECT $${n + 1}, $${n + 2}, $${n + 3}, ${text} FROM w LIMIT 1), `
      + `d AS (DELETE FROM homebase_outbox WHERE id = ANY($${n + 5}::text[])) SELECT * FROM w`,
    values: [...values, event.id, event.workspace, event.origin, event.text, settled],
  };
}

export interface OutboxRow { id: string; workspace: string; event: string; created_at: Date }

export class Outbox {
  private done: string[] = [];
  private flushing = false;

  constructor(private readonly db: PgDatabase, readonly origin: string) {}

  /** The event was dispatched (deliveries stored, relayed): its row goes, with the next write's
   *  statement (take) or, if none comes within RIDE_MS, with those of the same moment in one
   *  statement, committed without waiting for the disk: a row that comes back after a crash of
   *  the database is only dispatched again. */
  settled(id: string): void {
    this.done.push(id);
    if (!this.flushing) { this.flushing = true; setTimeout(() => void this.flush(), RIDE_MS).unref(); }
  }

  /** Dispatched events' ids for a write to delete in its own statement (withOutbox), taken from
   *  those waiting; `putBack` them if that statement failed. */
  take(): string[] {
    return this.done.length ? this.done.splice(0, RIDE_MAX) : [];
  }

  putBack(ids: string[]): void {
    for (const id of ids) this.settled(id);
  }

  private async flush(): Promise<void> {
    while (this.done.length) {
      const ids = this.done.splice(0, 1000);
      try {
        // One round trip: a transaction of three statements in one simple query, on the pool
        // itself (never on a write group's transaction, whose context a settle may run in).
        // A connection whose statement failed may be left in the failed transaction: dropped.
        if (this.db.isClosed) throw new Error('closed');
        const c = await this.db.pool.connect();
        try {
          await c.query(`BEGIN; SET LOCAL synchronous_commit = off; DELETE FROM homebase_outbox WHERE id = ANY(${pg.escapeLiteral(`{${ids.map((id) => `"${id.replace(/["\\]/g, '\\$&')}"`).join(',')}}`)}::text[]); COMMIT`);
          c.release();
        } catch (err) {
          c.release(true);
          throw err;
        }
      } catch {
        // The database away a moment: tried again shortly (stored meanwhile, they would only be
        // dispatched again, after a while or by another process if this one dies).
        if (this.db.isClosed) { this.done = []; this.flushing = false; return; }
        this.done.unshift(...ids);
        setTimeout(() => void this.flush(), FLUSH_RETRY_MS).unref();
        return;
      }
    }
    this.flushing = false;
  }

  /** Claims the events of processes that are gone (`isGone` answers which of the origins) and
   *  this process's own stale ones, oldest first. */
  async claim(isGone: (origins: string[]) => Promise<Set<string>>): Promise<OutboxRow[]> {
    const origins = (await this.db.query<{ origin: string }>(
      `SELECT DISTINCT origin FROM homebase_outbox WHERE origin <> $1 OR created_at < now() - $2 * interval '1 millisecond'`,
      [this.origin, OUTBOX_OWN_STALE_MS])).rows.map((r) => r.origin);
    if (!origins.length) return [];
    const others = origins.filter((o) => o !== this.origin);
    const gone = others.length ? [...await isGone(others)] : [];
    const own = origins.includes(this.origin);
    if (!gone.length && !own) return [];
    const rows = (await this.db.query<OutboxRow>(`
      WITH c AS (
        SELECT id, created_at FROM homebase_outbox
        WHERE origin = ANY($2::text[]) OR ($3 AND origin = $1 AND created_at < now() - $4 * interval '1 millisecond')
        ORDER BY created_at LIMIT ${CLAIM_MAX} FOR UPDATE SKIP LOCKED)
      UPDATE homebase_outbox o SET origin = $1, created_at = now() FROM c WHERE o.id = c.id
      RETURNING o.id, o.workspace, o.event, c.created_at`, [this.origin, gone, own, OUTBOX_OWN_STALE_MS])).rows;
    return rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
  }

  /** Events still stored (tests and diagnostics). */
  async pending(): Promise<number> {
    return (await this.db.query<{ n: number }>('SELECT count(*)::int AS n FROM homebase_outbox')).rows[0].n;
  }
}
