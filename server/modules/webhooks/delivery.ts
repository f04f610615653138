// The durable delivery queue: every pending (webhook, event) is stored with its next attempt
// number and time (delivery-records.ts), so pending deliveries and retries survive a restart.
// This file schedules them: timers per delivery, the due ones taken webhook by webhook within
// the concurrency limits, each attempt alone on its delivery (send-attempt.ts sends and logs
// it), rescheduled on failure until the attempts run out.
import type { AppContext } from '../context.js';
import type { BusEvent } from '../../core/bus.js';
import type { Workspace } from '../../storage/workspace.js';
import type { Doc } from '../../storage/query.js';
import type { Store } from '../../storage/store.js';
import { newId } from '../../core/ids.js';
import { StorageUnavailableError, StoreUnavailableError, UniqueViolationError } from '../../storage/errors.js';
import { logger } from '../../core/logger.js';
import { DELIVERIES, wantsEvent, webhookStore, type WebhookDoc } from './service.js';
import { Batcher } from './batches.js';
import { dataMatches } from './filter.js';
import { boundedEnvelope, safeEnvelope, type Envelope } from './envelopes.js';
import { deliveryIdOf, writeLog, type DeliveryDoc, type LogEntry } from './delivery-records.js';
import { attemptLogEntry, sendAttempt, succeeded } from './send-attempt.js';

/** Attempts running at once to one webhook: a burst of its events queues rather than flooding
 *  its receiver, and a receiver that hangs holds up only its own deliveries. */
export const MAX_PER_WEBHOOK = 4;
/** Attempts running at once, all webhooks and workspaces together. */
export const MAX_CONCURRENT = 64;

const SHUTDOWN = 'shutdown';
const HOLD_DELIVERIES = process.env.HOMEBASE_TEST_HOLD_DELIVERIES === '1';

export class Deliverer {
  private timers = new Map<string, { wsId: string; timer: NodeJS.Timeout }>();
  /** Deliveries due, per webhook (`wsId NUL webhookId`), oldest first; taken in turn, one webhook after another. */
  private ready = new Map<string, { ws: Workspace; ids: string[] }>();
  /** Attempts in flight per webhook. */
  private inFlight = new Map<string, number>();
  /** Attempts in flight by workspace and delivery; `again` marks one whose next attempt came due
   *  before it had ended (its lock is released after the retry is scheduled, which on PostgreSQL
   *  is a round trip): that attempt runs as soon as this one ends instead of being dropped. */
  private running = new Map<string, { wsId: string; abort: AbortController; done: Promise<unknown>; again?: boolean }>();
  private stopped = false;
  /** Open batches of the webhooks that batch their events (batches.ts). */
  readonly batcher = new Batcher((ws, webhookId, event, options) => this.enqueue(ws, webhookId, event, options));

  constructor(private readonly ctx: AppContext) {}

  get maxAttempts(): number { return this.ctx.config.webhookRetryDelays.length + 1; }

  /** Bus listener: one delivery per active webhook that wants the event. */
  async onEvent(event: BusEvent): Promise<void> {
    // Stopping: an event stored with its write stays stored, for a live process to deliver.
    if (this.stopped && event.outboxed) throw new Error('The webhook deliverer is stopped');
    if (this.stopped || event.relayed || event.type === 'webhook.test') return;
    const ws = this.ctx.registry.get(event.app);
    if (!ws) return;
    // The change is already acknowledged: its deliveries must be stored even if the store is
    // away this moment (a database connection cut), so a failure is tried again for a while.
    // Each delivery's id comes from its event and webhook, so a try whose answer was lost after
    // it was stored is not stored twice.
    for (let attempt = 0; ; attempt++) {
      try {
        const hooks = (await (await webhookStore(ws)).all()) as unknown as WebhookDoc[];
        const body = safeEnvelope(event);
        // `filter.match`: conditions on the event's data (filter.ts).
        const targets = hooks.filter((h) => h.active && wantsEvent(h, event) && (h.filter?.matchJson === undefined || dataMatches(h.filter.matchJson, body.data)));
        // Test hook for kill -9 tests: a child started with HOMEBASE_TEST_HOLD_DELIVERIES=1 never
        // stores an event's deliveries, as a process killed between its answer and storing them.
        if (HOLD_DELIVERIES && targets.length) return new Promise<void>(() => undefined);
        for (const hook of targets) {
          if (hook.batch) await this.batcher.add(ws, hook, boundedEnvelope(body));
          else await this.enqueue(ws, hook._id, body, { id: deliveryIdOf(event.id, hook._id) });
        }
        return;
      } catch (err) {
        const away = err instanceof StoreUnavailableError || err instanceof StorageUnavailableError;
        if (!away || attempt >= ENQUEUE_RETRIES.length || this.stopped) throw err;
        await new Promise((r) => setTimeout(r, ENQUEUE_RETRIES[attempt]));
      }
    }
  }

  /** Stores a delivery and schedules its first attempt now. */
  async enqueue(ws: Workspace, webhookId: string, event: Envelope, options: { test?: boolean; schedule?: boolean; redeliveryOf?: string; id?: string } = {}): Promise<string> {
    const doc: DeliveryDoc = {
      _id: options.id ?? newId(), webhookId, eventId: event.id, event: boundedEnvelope(event), attempt: 1, nextAttemptAt: ws.now(),
      ...(options.test ? { test: true } : {}), ...(options.redeliveryOf ? { redeliveryOf: options.redeliveryOf } : {}),
      ...(ws.processes.origin ? { owner: ws.processes.origin } : {}), createdAt: ws.nowIso(),
    };
    const deliveries = await ws.store(DELIVERIES);
    try {
      await deliveries.insert(doc as unknown as Doc);
    } catch (err) {
      // Stored by an earlier try whose answer was lost: it is there (and scheduled below).
      if (!(err instanceof UniqueViolationError && options.id && await deliveries.get(options.id))) throw err;
    }
    if (options.schedule !== false) this.schedule(ws, doc._id, webhookId, doc.nextAttemptAt);
    return doc._id;
  }

  /** Re-schedules every pending delivery of a workspace (start, or content replaced). */
  async resume(ws: Workspace): Promise<void> {
    if (this.stopped) return;
    for (const d of (await (await ws.store(DELIVERIES)).all()) as unknown as DeliveryDoc[]) this.schedule(ws, d._id, d.webhookId, d.nextAttemptAt);
    await this.batcher.resume(ws);
  }

  /** Takes over the pending deliveries of processes that are gone (PostgreSQL): each becomes
   *  this process's, under its lock so that two live processes never both claim one, and is
   *  scheduled here. Its event id (`webhook-id`) stays the same. */
  async takeOver(ws: Workspace, isGone: (owners: string[]) => Promise<Set<string>>): Promise<number> {
    const me = ws.processes.origin;
    if (this.stopped || !me) return 0;
    const deliveries = await ws.store(DELIVERIES);
    const others = ((await deliveries.all()) as unknown as DeliveryDoc[]).filter((d) => d.owner !== me && !this.timers.has(`${ws.id}\u0000${d._id}`));
    if (!others.length) return 0;
    const gone = await isGone([...new Set(others.map((d) => d.owner ?? ''))]);
    let taken = 0;
    for (const d of others) {
      if (!gone.has(d.owner ?? '')) continue;
      const claimed = await deliveries.exclusive(d._id, async () => {
        const current = (await deliveries.get(d._id)) as unknown as DeliveryDoc | undefined;
        if (!current || current.owner !== d.owner) return undefined;
        const mine: DeliveryDoc = { ...current, owner: me };
        return (await deliveries.replace(d._id, mine as unknown as Doc)) ? mine : undefined;
      });
      if (claimed) { taken++; this.schedule(ws, claimed._id, claimed.webhookId, claimed.nextAttemptAt); }
    }
    return taken;
  }

  /** Stops a workspace's timers and aborts its attempts in flight (they stay pending, unlogged). */
  async stopWorkspace(wsId: string): Promise<void> {
    this.batcher.stopWorkspace(wsId);
    for (const [key, t] of this.timers) if (t.wsId === wsId) { clearTimeout(t.timer); this.timers.delete(key); }
    for (const [key, q] of this.ready) if (q.ws.id === wsId) this.ready.delete(key);
    const mine = [...this.running.values()].filter((r) => r.wsId === wsId);
    for (const r of mine) r.abort.abort(SHUTDOWN);
    await Promise.allSettled(mine.map((r) => r.done));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.batcher.stop();
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.ready.clear();
    for (const r of this.running.values()) r.abort.abort(SHUTDOWN);
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /** Runs a delivery's next attempt at once, whatever the limits, and resolves to its log entry (the test endpoint). */
  async attemptNow(ws: Workspace, id: string): Promise<LogEntry | undefined> {
    const delivery = (await (await ws.store(DELIVERIES)).get(id)) as unknown as DeliveryDoc | undefined;
    return this.run(ws, id, hookKey(ws.id, delivery?.webhookId ?? ''), true);
  }

  /** Schedules an attempt at `at`, the workspace's time (its clock): a real timer for the time
   *  left while the clock runs; none while it stands still and the attempt is not due yet (a move
   *  of the clock calls `resume`, which schedules every pending delivery again). */
  private schedule(ws: Workspace, id: string, webhookId: string, at: number) {
    if (this.stopped) return;
    const key = `${ws.id}\u0000${id}`;
    const existing = this.timers.get(key);
    if (existing) { clearTimeout(existing.timer); this.timers.delete(key); }
    const left = at - ws.now();
    const clock = ws.settings.data.clock;
    if (left > 0 && clock && 'frozenAt' in clock) return;
    const timer = setTimeout(() => {
      this.timers.delete(key);
      const hk = hookKey(ws.id, webhookId);
      const queue = this.ready.get(hk);
      if (queue) queue.ids.push(id); else this.ready.set(hk, { ws, ids: [id] });
      this.pump();
    }, Math.max(0, left));
    timer.unref?.();
    this.timers.set(key, { wsId: ws.id, timer });
  }

  /** Starts due attempts: each webhook's oldest first, up to MAX_PER_WEBHOOK per webhook and
   *  MAX_CONCURRENT in all, webhooks taking turns. */
  private pump() {
    let started = true;
    while (started && !this.stopped && this.running.size < MAX_CONCURRENT && this.ready.size > 0) {
      started = false;
      for (const [hk, queue] of this.ready) {
        if (this.running.size >= MAX_CONCURRENT) break;
        if ((this.inFlight.get(hk) ?? 0) >= MAX_PER_WEBHOOK) continue;
        const id = queue.ids.shift()!;
        if (queue.ids.length === 0) this.ready.delete(hk);
        started = true;
        void this.run(queue.ws, id, hk).finally(() => this.pump());
      }
    }
  }

  private async run(ws: Workspace, id: string, hk: string, now = false): Promise<LogEntry | undefined> {
    const key = `${ws.id}\u0000${id}`;
    if (this.stopped) return undefined;
    const current = this.running.get(key);
    if (current) { current.again = true; return undefined; }
    const abort = new AbortController();
    const done = this.attempt(ws, id, abort.signal, now).catch((err) => {
      if (abort.signal.reason !== SHUTDOWN) logger.error({ err, workspace: ws.id, delivery: id }, 'webhook delivery failed');
      return undefined;
    });
    const entry: { wsId: string; abort: AbortController; done: Promise<unknown>; again?: boolean } = { wsId: ws.id, abort, done };
    this.running.set(key, entry);
    this.inFlight.set(hk, (this.inFlight.get(hk) ?? 0) + 1);
    try {
      return await done;
    } finally {
      this.running.delete(key);
      const n = (this.inFlight.get(hk) ?? 1) - 1;
      if (n > 0) this.inFlight.set(hk, n); else this.inFlight.delete(hk);
      // Not yet due, the attempt re-schedules itself; gone or made, it does nothing.
      if (entry.again && !this.stopped) {
        const queue = this.ready.get(hk);
        if (queue) queue.ids.push(id); else this.ready.set(hk, { ws, ids: [id] });
        queueMicrotask(() => this.pump());
      }
    }
  }

  /** One attempt, alone on its delivery (across processes on PostgreSQL, where every process
   *  schedules the pending deliveries): an attempt finds the delivery gone or not yet due when
   *  another one made it meanwhile, and then does nothing, so each attempt is made once. */
  private async attempt(ws: Workspace, id: string, signal: AbortSignal, now: boolean): Promise<LogEntry | undefined> {
    const deliveries = await ws.store(DELIVERIES);
    return deliveries.exclusive(id, () => this.attemptAlone(ws, deliveries, id, signal, now));
  }

  private async attemptAlone(ws: Workspace, deliveries: Store, id: string, signal: AbortSignal, now: boolean): Promise<LogEntry | undefined> {
    const delivery = (await deliveries.get(id)) as unknown as DeliveryDoc | undefined;
    if (!delivery) return undefined;
    if (!now && delivery.nextAttemptAt > ws.now() + 1000) { // made elsewhere; the next one is scheduled
      this.schedule(ws, id, delivery.webhookId, delivery.nextAttemptAt);
      return undefined;
    }
    const hook = (await (await webhookStore(ws)).get(delivery.webhookId)) as unknown as WebhookDoc | undefined;
    // Deleted, or switched off since: the pending delivery is dropped (events fire only while active).
    if (!hook || (!hook.active && !delivery.test)) { await deliveries.remove(id); return undefined; }

    const sent = await sendAttempt(this.ctx, ws, delivery, hook, signal);
    if (signal.aborted && signal.reason === SHUTDOWN) return undefined; // left pending: retried after the restart

    const retry = !succeeded(sent) && delivery.attempt < this.maxAttempts;
    const nextAttemptAt = retry ? ws.now() + (this.ctx.config.webhookRetryDelays[delivery.attempt - 1] ?? 0) : undefined;
    const entry = attemptLogEntry(ws, delivery, hook, sent, nextAttemptAt);
    await writeLog(ws, entry);

    if (nextAttemptAt === undefined) {
      await deliveries.remove(id);
    } else {
      const next: DeliveryDoc = { ...delivery, attempt: delivery.attempt + 1, nextAttemptAt };
      if (await deliveries.replace(id, next as unknown as Doc)) this.schedule(ws, id, delivery.webhookId, next.nextAttemptAt);
    }
    return entry;
  }
}

function hookKey(wsId: string, webhookId: string): string { return `${wsId}\u0000${webhookId}`; }

/** Pauses before storing an event's deliveries is tried again (about a minute in all). */
const ENQUEUE_RETRIES = [100, 250, 500, 1000, 2000, 4000, 8000, 15_000, 30_000];
