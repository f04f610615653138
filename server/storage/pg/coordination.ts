// What several Homebase processes on one database share, beyond the stores:
//  - EventRelay: events published by one process reach every process (LISTEN/NOTIFY), so each
//    can hand them to its own realtime sockets;
//  - claimTick: a scheduled scenario's tick fires in one process only;
//  - SharedLoginLimiter: failed-login counts per workspace and email, one window for all processes.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { PgDatabase } from './database.js';
import { RateLimitedError } from '../errors.js';

/** NOTIFY payloads are limited to 8,000 bytes; larger events travel through a table. */
const MAX_PAYLOAD = 7000;
const CHANNEL = 'homebase_events';
/** Bytes of a notification around its events (origin id, brackets). */
const ENVELOPE_BYTES = 64;

/** Relaying failed after the first `sent` events of a batch went out. */
export class RelayFailure extends Error {
  constructor(readonly sent: number, readonly cause: unknown) { super((cause as Error)?.message ?? String(cause)); }
}

export interface RelayedEvent { workspace: string; event: unknown }

/** Publishes events to every process and delivers the other processes' events to `onEvent`. A
 *  dedicated connection listens; when it is lost it reconnects (events published meanwhile by
 *  others are not replayed: realtime is "at most once" to a socket, as on one process), then
 *  calls `onResumed`, so that state kept from control messages can be read again. */
export class EventRelay {
  readonly origin = randomUUID();
  private client?: pg.Client;
  private closed = false;
  private retry?: NodeJS.Timeout;
  /** Called when the listening connection is lost (other processes' messages may be missed
   *  from then on, until it is back). */
  onLost?: () => void;

  private constructor(private readonly db: PgDatabase, private readonly onEvent: (e: RelayedEvent) => void, private readonly onResumed?: () => void) {}

  static async start(db: PgDatabase, onEvent: (e: RelayedEvent) => void, onResumed?: () => void): Promise<EventRelay> {
    const relay = new EventRelay(db, onEvent, onResumed);
    await relay.listen();
    return relay;
  }

  /** Closed with the server: nothing is sent any more. */
  get isClosed(): boolean { return this.closed; }

  /** The server process of the listening connection (tests end it to cut the relay). */
  get listenerPid(): number | undefined {
    return (this.client as (pg.Client & { processID?: number }) | undefined)?.processID;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.db.url, application_name: 'homebase-listen' });
    client.on('error', () => this.reconnect());
    client.on('end', () => this.reconnect());
    client.on('notification', (msg) => { if (msg.channel === CHANNEL && msg.payload) void this.receive(msg.payload); });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    // This process's sign of life: held by its listening connection, gone when that connection
    // is (the process died, or was cut off from the database). See liveOrigins.
    await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [LIFE_KEY, this.origin]);
    this.client = client;
  }

  private reconnect(): void {
    if (this.closed || this.retry) return;
    const old = this.client;
    this.client = undefined;
    this.onLost?.();
    old?.removeAllListeners();
    // A client that already failed may emit 'error' again while ending: never unheard.
    old?.on('error', () => undefined);
    void old?.end().catch(() => undefined);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.closed) this.listen().then(() => { if (!this.closed) this.onResumed?.(); }, () => this.reconnect());
    }, 500);
  }

  /** Messages are handled one after another in the order they arrive, a large one read back
   *  from its table included, so the events of one process reach the others in its order. */
  private received: Promise<void> = Promise.resolve();

  private receive(payload: string): void {
    this.received = this.received.then(() => this.handle(payload)).catch(() => undefined);
  }

  private async handle(payload: string): Promise<void> {
    let msg: { o: string; w?: string; e?: unknown; ref?: string; b?: Array<{ w: string; e: unknown }> };
    try { msg = JSON.parse(payload); } catch { return; }
    if (msg.o === this.origin) return; // this process already delivered its own event
    if (msg.ref) {
      const row = (await this.db.query<{ workspace: string; event: unknown }>('SELECT workspace, event FROM homebase_event_payloads WHERE id = $1', [msg.ref]).catch(() => undefined))?.rows[0];
      if (row) this.onEvent({ workspace: row.workspace, event: row.event });
      return;
    }
    if (msg.b) { for (const one of msg.b) this.onEvent({ workspace: one.w, event: one.e }); return; }
    this.onEvent({ workspace: msg.w!, event: msg.e });
  }

  /** Sends an event to the other processes (this process handles its own directly). */
  async publish(workspace: string, event: unknown): Promise<void> {
    await this.publishMany([[workspace, event]]);
  }

  /** Sends events to the other processes, in order, in as few notifications as their size
   *  allows (small events share one; one too large for a notification travels through a table).
   *  A failure throws a `RelayFailure` saying how many of `batch`, from its start, went out. */
  async publishMany(batch: Array<[string, unknown]>): Promise<void> {
    let group: string[] = [];
    let size = 0;
    let sent = 0;
    const flush = async () => {
      if (!group.length) return;
      await this.db.query('SELECT pg_notify($1, $2)', [CHANNEL, `{"o":${JSON.stringify(this.origin)},"b":[${group.join(',')}]}`]);
      sent += group.length;
      group = [];
      size = 0;
    };
    try {
      for (const [workspace, event] of batch) {
        const one = JSON.stringify({ w: workspace, e: event });
        const bytes = Buffer.byteLength(one) + 1;
        if (bytes + ENVELOPE_BYTES > MAX_PAYLOAD) {
          await flush();
          const id = randomUUID();
          await this.db.query('INSERT INTO homebase_event_payloads (id, workspace, event) VALUES ($1, $2, $3::jsonb)', [id, workspace, JSON.stringify(event)]);
          // Old payloads are read within moments; keep ten minutes of them.
          await this.db.query(`DELETE FROM homebase_event_payloads WHERE created_at < now() - interval '10 minutes'`);
          await this.db.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify({ o: this.origin, ref: id })]);
          sent++;
          continue;
        }
        if (size + bytes + ENVELOPE_BYTES > MAX_PAYLOAD) await flush();
        group.push(one);
        size += bytes;
      }
      await flush();
    } catch (err) {
      throw new RelayFailure(sent, err);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const c = this.client;
    this.client = undefined;
    if (c) { c.removeAllListeners(); c.on('error', () => undefined); await c.end().catch(() => undefined); }
  }
}

/** The first key of the advisory locks that say a process is alive (the second: its origin). */
const LIFE_KEY = 0x48424c56; // 'HBLV'

/** Which of these processes (relay origins) are alive: connected to the database, listening. */
export async function liveOrigins(db: PgDatabase, origins: string[]): Promise<Set<string>> {
  if (!origins.length) return new Set();
  const { rows } = await db.query<{ o: string }>(`
    SELECT o FROM unnest($2::text[]) AS o
    WHERE EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
                  AND classid = ($1::int)::oid AND objid = (hashtext(o)::bigint & 4294967295)::oid)`, [LIFE_KEY, origins]);
  return new Set(rows.map((r) => r.o));
}

/** True in exactly one of the processes that call it for the same scenario and tick. */
export async function claimTick(db: PgDatabase, workspace: string, scenarioId: string, tick: Date): Promise<boolean> {
  const { rowCount } = await db.query(`INSERT INTO homebase_ticks (workspace, scenario_id, tick) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [workspace, scenarioId, tick]);
  // Ticks of this workspace a day older than this one can no longer be claimed by anyone in step
  // with its clock (each workspace has its own clock, so only its own ticks are compared).
  if (rowCount) void db.query(`DELETE FROM homebase_ticks WHERE workspace = $2 AND tick < $1::timestamptz - interval '1 day'`, [tick, workspace]).catch(() => undefined);
  return (rowCount ?? 0) > 0;
}

/** The failed-login limiter (the same rules as modules/auth/rate-limit.ts) kept in
 *  the database, so that guesses spread over several processes meet one limit: more than `limit`
 *  failures for one email within a minute → 429 with Retry-After; at most `limit - failures`
 *  attempts per email in flight at once, across processes (an attempt holds a row while it runs;
 *  one left by a process that died lapses after a while). */
export class SharedLoginLimiter {
  constructor(private readonly db: PgDatabase, private readonly limit: number, private readonly windowMs = 60_000, private readonly staleMs = 30_000) {}

  /** Admits an attempt (waiting while too many are in flight), or throws 429. `now` (epoch ms)
   *  is the workspace's time, which the failures' window follows; a pending attempt lapses by
   *  the database's own time. */
  async begin(workspace: string, email: string, now: () => number = Date.now): Promise<string> {
    for (;;) {
      const at = now();
      const admitted = await this.db.tx(async (c) => {
        await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`homebase-login:${workspace}/${email}`]);
        await c.query(`DELETE FROM homebase_login_attempts WHERE workspace = $1 AND email = $2 AND (failed_at <= to_timestamp($5::float8 / 1000) - $3 * interval '1 millisecond'
          OR (failed_at IS NULL AND begun_at < now() - $4 * interval '1 millisecond'))`, [workspace, email, this.windowMs, this.staleMs, at]);
        const row = (await c.query<{ failures: number; pending: number; oldest_ms: number | null }>(`
          SELECT count(failed_at)::int AS failures, (count(*) - count(failed_at))::int AS pending,
                 extract(epoch FROM (min(failed_at) + $3 * interval '1 millisecond' - to_timestamp($4::float8 / 1000))) * 1000 AS oldest_ms
          FROM homebase_login_attempts WHERE workspace = $1 AND email = $2`, [workspace, email, this.windowMs, at])).rows[0];
        if (row.failures >= this.limit) return { retryAfter: Math.max(1, Math.ceil(Number(row.oldest_ms) / 1000)) };
        if (row.failures + row.pending >= this.limit) return undefined;
        const id = randomUUID();
        await c.query('INSERT INTO homebase_login_attempts (id, workspace, email) VALUES ($1, $2, $3)', [id, workspace, email]);
        return { id };
      });
      if (admitted?.id) return admitted.id;
      if (admitted?.retryAfter) throw new RateLimitedError(admitted.retryAfter);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** The attempt is over: a failure counts from now on, a success never does. */
  async end(id: string, failed: boolean, now: number = Date.now()): Promise<void> {
    if (failed) await this.db.query('UPDATE homebase_login_attempts SET failed_at = to_timestamp($2::float8 / 1000) WHERE id = $1', [id, now]);
    else await this.db.query('DELETE FROM homebase_login_attempts WHERE id = $1', [id]);
  }

  /** Forgets a workspace's failures (reset, restore, import). */
  async clearWorkspace(workspace: string): Promise<void> {
    await this.db.query('DELETE FROM homebase_login_attempts WHERE workspace = $1', [workspace]);
  }
}
