// The durable delivery queue: one `webhook_deliveries` document per pending (webhook, event),
// with its next attempt number and time, so pending deliveries and retries survive a restart.
// Each attempt is signed per Standard Webhooks, logged in `webhook_logs`, and rescheduled on
// failure until the attempts run out.
import { createHash, randomUUID } from 'node:crypto';
import { Webhook as Signer } from 'standardwebhooks';
import type { AppContext } from '../context.js';
import type { BusEvent } from '../../core/bus.js';
import { envelope } from '../../core/bus.js';
import type { Workspace } from '../../storage/workspace.js';
import type { Doc } from '../../storage/query.js';
import { withIndexes, type Store } from '../../storage/store.js';
import { newId } from '../../core/ids.js';
import { webhookFault } from '../faults/index.js';
import { StorageUnavailableError, StoreUnavailableError, UniqueViolationError } from '../../storage/errors.js';
import { logger } from '../../core/logger.js';
import { ApiError } from '../../core/errors.js';
import { sendRequest, describeRequestError } from '../../core/outbound-http.js';
import { DELIVERIES, LOGS, signingSecret, wantsEvent, webhookStore, type WebhookDoc } from './service.js';
import { Batcher } from './batches.js';
import { dataMatches } from './filter.js';

/** Log entries kept per webhook; older ones are dropped. */
export const LOGS_PER_WEBHOOK = 1000;
/** Response bodies are logged up to this many bytes. */
const RESPONSE_BODY_LIMIT = 4096;
/** Request bodies are stored (pending deliveries, logs) up to this many bytes. */
export const REQUEST_BODY_LIMIT = 64 * 1024;
/** Attempts running at once to one webhook: a burst of its events queues rather than flooding
 *  its receiver, and a receiver that hangs holds up only its own deliveries. */
export const MAX_PER_WEBHOOK = 4;
/** Attempts running at once, all webhooks and workspaces together. */
export const MAX_CONCURRENT = 64;

export type Envelope = ReturnType<typeof envelope>;

interface DeliveryDoc {
  _id: string;
  webhookId: string;
  eventId: string;
  event: Envelope;
  /** Number of the next attempt, from 1. */
  attempt: number;
  /** Epoch ms of the next attempt. */
  nextAttemptAt: number;
  /** A test delivery (or one sent again by hand) goes out even while the webhook is inactive. */
  test?: boolean;
  /** The log entry this delivery sends again (`POST /webhooks/{id}/logs/{logId}/redeliver`). */
  redeliveryOf?: string;
  /** On PostgreSQL: the process (relay origin) that scheduled it; another takes it over once
   *  that one is gone (takeover.ts). */
  owner?: string;
  createdAt: string;
}

export interface LogEntry {
  _id: string;
  webhookId: string;
  eventId: string;
  event: string;
  attempt: number;
  status: 'succeeded' | 'failed';
  durationMs: number;
  error: string | null;
  /** `body`: the first 64 KiB of what was sent; `bodyTruncated` when that was not all of it. */
  request: { url: string; headers: Record<string, string>; body: string; bodyTruncated?: boolean };
  response: { status: number; body: string } | null;
  /** When this failed attempt is retried (ISO time); null when it succeeded or was the last. */
  nextAttemptAt: string | null;
  /** The log entry whose event this attempt sends again, when sent again by hand. */
  redeliveryOf?: string;
  /** A webhook fault rule of the workspace failed this attempt (its index): nothing was sent. */
  fault?: { rule: number };
  createdAt: string;
}

const SHUTDOWN = 'shutdown';

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

    const body = JSON.stringify(delivery.event);
    const sentAt = new Date();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': `Homebase-Webhooks/${this.ctx.config.version}`,
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': new Signer(signingSecret(ws, hook)).sign(delivery.eventId, sentAt, body),
    };
    // A webhook fault rule (a test suite's) fails the attempt as if the receiver had answered
    // its status: nothing is sent, and the retries follow as for any failure.
    const fault = webhookFault(ws);
    const outcome: Outcome = fault
      ? { status: fault.status, body: '', error: `Injected fault: rule ${fault.rule} of this workspace's faults answered HTTP ${fault.status}; nothing was sent`, durationMs: 0 }
      : await post(hook.url, headers, body, this.ctx.config.webhookTimeout, signal);
    if (signal.aborted && signal.reason === SHUTDOWN) return undefined; // left pending: retried after the restart

    const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
    const retry = !ok && delivery.attempt < this.maxAttempts;
    const nextAttemptAt = retry ? ws.now() + (this.ctx.config.webhookRetryDelays[delivery.attempt - 1] ?? 0) : undefined;
    const entry: LogEntry = {
      _id: newId(), webhookId: hook._id, eventId: delivery.eventId, event: delivery.event.type, attempt: delivery.attempt,
      status: ok ? 'succeeded' : 'failed', durationMs: outcome.durationMs,
      error: ok ? null : (outcome.error ?? `Receiver answered HTTP ${outcome.status}`),
      request: { url: hook.url, headers, ...boundedBody(body) },
      response: outcome.status === undefined ? null : { status: outcome.status, body: outcome.body ?? '' },
      nextAttemptAt: nextAttemptAt === undefined ? null : new Date(nextAttemptAt).toISOString(),
      ...(delivery.redeliveryOf ? { redeliveryOf: delivery.redeliveryOf } : {}),
      ...(fault ? { fault: { rule: fault.rule } } : {}),
      createdAt: ws.nowIso(),
    };
    await this.writeLog(ws, entry);

    if (nextAttemptAt === undefined) {
      await deliveries.remove(id);
    } else {
      const next: DeliveryDoc = { ...delivery, attempt: delivery.attempt + 1, nextAttemptAt };
      if (await deliveries.replace(id, next as unknown as Doc)) this.schedule(ws, id, delivery.webhookId, next.nextAttemptAt);
    }
    return entry;
  }

  private async writeLog(ws: Workspace, entry: LogEntry) {
    const logs = await withIndexes(await ws.store(LOGS), [{ fieldName: 'webhookId' }]);
    await logs.insert(entry as unknown as Doc);
    const mine = { path: 'webhookId', op: '$eq' as const, values: [entry.webhookId] };
    const { total } = await logs.find({ conditions: [mine], sort: [], limit: 0, offset: 0 });
    if (total > LOGS_PER_WEBHOOK) {
      const oldest = await logs.find({ conditions: [mine], sort: [{ path: 'createdAt', dir: 1 }], limit: total - LOGS_PER_WEBHOOK, offset: 0 });
      await logs.removeWhere([{ path: '_id', op: '$in', values: oldest.data.map((d) => d._id) }]);
    }
  }
}

function hookKey(wsId: string, webhookId: string): string { return `${wsId}\u0000${webhookId}`; }

/** Pauses before storing an event's deliveries is tried again (about a minute in all). */
const ENQUEUE_RETRIES = [100, 250, 500, 1000, 2000, 4000, 8000, 15_000, 30_000];

/** The id of the delivery of one event to one webhook: the same however often it is stored. */
function deliveryIdOf(eventId: string, webhookId: string): string {
  return `d${createHash('sha256').update(`${eventId}\u0000${webhookId}`).digest('base64url').slice(0, 40)}`;
}

/** The envelope of a bus event, without anything that must never leave the server. */
export function safeEnvelope(event: BusEvent): Envelope {
  const env = envelope(event);
  if (env.data && typeof env.data === 'object' && 'passwordHash' in env.data) {
    const { passwordHash: _omit, ...data } = env.data as Record<string, unknown>;
    return { ...env, data };
  }
  return env;
}

/** The event a log entry sent, read back from the exact JSON it logged (to send it again).
 *  An entry whose body was cut (over 64 KiB, which a bounded envelope never is) cannot be. */
export function loggedEnvelope(entry: LogEntry): Envelope {
  let event: Envelope | undefined;
  if (!entry.request.bodyTruncated) {
    try { event = JSON.parse(entry.request.body) as Envelope; } catch { /* below */ }
  }
  if (!event || typeof event !== 'object' || typeof event.id !== 'string') {
    throw ApiError.conflict(`Log entry '${entry._id}' does not hold the whole event it sent, so it cannot be sent again`);
  }
  return event;
}

/** A test event for one webhook (`POST /webhooks/{id}/test`). */
export function testEnvelope(ws: Workspace, webhookId: string): Envelope {
  return {
    id: `evt_${randomUUID()}`, type: 'webhook.test', timestamp: ws.nowIso(), app: ws.id,
    data: { webhookId, message: 'Test event sent from Homebase' },
  };
}

interface Outcome { status?: number; body?: string; error?: string; durationMs: number }

async function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number, outer: AbortSignal): Promise<Outcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    // Redirects are not followed: a 3xx is a failed delivery, like any non-2xx.
    const answer = await sendRequest({ method: 'POST', url, headers, body, timeoutMs, limit: RESPONSE_BODY_LIMIT, signal: outer });
    return { status: answer.status, body: answer.body, durationMs: elapsed() };
  } catch (err) {
    return { error: describeRequestError(err), durationMs: elapsed() };
  }
}

/** An envelope whose JSON is over 64 KiB (a large record) is stored and sent with `data` cut
 *  down to the object's identifying keys and `truncated: true`: a pending delivery stays small,
 *  and the receiver still gets valid signed JSON naming the object, which it can fetch by id. */
export function boundedEnvelope(event: Envelope): Envelope {
  if ((event.type as string) === 'batch') return event; // its events were bounded one by one
  if (Buffer.byteLength(JSON.stringify(event)) <= REQUEST_BODY_LIMIT) return event;
  const data = (event.data ?? {}) as Record<string, unknown>;
  const keep: Record<string, unknown> = {};
  for (const k of ['_id', 'collection', 'channelId', 'name', 'createdAt', 'updatedAt']) if (data[k] !== undefined) keep[k] = data[k];
  return { ...event, data: keep, truncated: true } as Envelope;
}

function boundedBody(body: string): { body: string; bodyTruncated?: boolean } {
  if (body.length <= REQUEST_BODY_LIMIT / 4 || Buffer.byteLength(body) <= REQUEST_BODY_LIMIT) return { body };
  let cut = body.slice(0, REQUEST_BODY_LIMIT);
  while (Buffer.byteLength(cut) > REQUEST_BODY_LIMIT) cut = cut.slice(0, -1024);
  return { body: cut, bodyTruncated: true };
}
