// Starting on PostgreSQL (`--database`): the registry over the PostgreSQL engine (engine.ts),
// and what the processes sharing it exchange. Every event published here goes to the other processes through the
// relay (LISTEN/NOTIFY), where it reaches their realtime sockets; webhooks and scenarios act on
// an event only in the process that published it, so each happens once. Changes other
// processes must know of travel the same way as control messages: a workspace created, deleted
// or swapped wholesale, its settings (schema) written, and what modules tell each other (`tell`
// and `hear`: a scenario's schedule changed).
import type { EventBus, BusEvent } from '../../core/bus.js';
import type { ServerConfig } from '../../core/config.js';
import { logger } from '../../core/logger.js';
import { Registry } from '../registry.js';
import { PgEngine, type PgBackend } from './engine.js';
import type { PgDatabase } from './database.js';
import { Outbox, OUTBOX_SWEEP_MS, type OutboxRow } from './outbox.js';
import type { EventRelay } from './coordination.js';

/** Events waiting to be relayed at most; control messages are never dropped. */
const RELAY_QUEUE_MAX = 100_000;
/** Events handed to the relay at once (it packs them into as few notifications as fit). */
const RELAY_BATCH_MAX = 500;
/** Pause before a failed relay send is tried again. */
const RELAY_RETRY_MS = 250;

type Control = { $control: 'created' | 'deleted' | 'replaced' | 'settings' } | { $control: 'peer'; topic: string; data: unknown }
  | { $control: 'written'; tables: string[] };
type Handler = Parameters<PgBackend['hear']>[1];

export async function openOnDatabase(db: PgDatabase, config: ServerConfig, bus: EventBus): Promise<Registry> {
  const { PgWorkspaces } = await import('./workspaces.js');
  const { EventRelay, SharedLoginLimiter, claimTick, liveOrigins } = await import('./coordination.js');
  let registry: Registry | undefined;
  const handlers = new Map<string, Handler>();
  // Relayed messages are handled one after another, in the order they arrive.
  let chain: Promise<unknown> = Promise.resolve();
  const onMessage = async (workspace: string, message: unknown): Promise<void> => {
    if (!registry) return;
    const control = (message as Control).$control;
    if (control === 'deleted') return registry.release(workspace);
    const ws = registry.get(workspace) ?? await registry.adopt(workspace);
    if (!ws || control === 'created') return;
    if (control === 'settings') return ws.settings.reload();
    if (control === 'peer') {
      const { topic, data } = message as Extract<Control, { $control: 'peer' }>;
      return handlers.get(topic)?.(ws, data);
    }
    if (control === 'replaced') {
      db.forget(workspace);
      await ws.settings.reload();
      return registry.notifyReplaced(ws, { local: true });
    }
    const { outboxed: _o, recovered: _r, ...event } = message as BusEvent;
    bus.publish({ ...event, relayed: true });
  };
  // The listener was cut and is back: control messages sent meanwhile are lost, so everything
  // they keep in step is read again (workspaces, settings, store handles, and each module's
  // state through its `hear` handlers, called without data).
  const resync = async (): Promise<void> => {
    if (!registry) return;
    const rows = await workspaces.list();
    const ids = new Set(rows.map((r) => r.id));
    for (const { _id } of registry.list()) if (!ids.has(_id)) await registry.release(_id);
    for (const id of ids) {
      const ws = registry.get(id) ?? await registry.adopt(id);
      if (!ws) continue;
      db.forget(id);
      await ws.settings.reload();
      for (const handler of handlers.values()) await handler(ws, undefined);
    }
    logger.info({ workspaces: ids.size }, 'the event listener is back: workspaces, settings and schedules read again');
  };
  const relay = await EventRelay.start(db, ({ workspace, event }) => {
    // Another process wrote to these store tables: the totals kept of them are stale from now
    // on (not after the messages before it are handled).
    if ((event as Control).$control === 'written') { for (const t of (event as { tables: string[] }).tables) db.counts.written(t); return; }
    chain = chain.then(() => onMessage(workspace, event)).catch((err) => logger.warn({ err: (err as Error).message, workspace }, 'a relayed event could not be handled'));
  }, () => {
    chain = chain.then(resync).catch((err) => logger.warn({ err: (err as Error).message }, 'could not read the workspaces again after the event listener came back'));
  });
  // Sent in order, holding one connection at a time, many events per notification: a burst of
  // events never takes the pool from the requests, and one round trip carries dozens of them
  // (one notification per event, one after another, fell behind at a few hundred writes a second
  // and dropped events with no fault at all). A failed send is tried again, from the first event
  // that did not go out, after a short pause (the database may be back). Only past the bound of
  // waiting events (the database away for long) are events dropped, and said so.
  const { RelayFailure } = await import('./coordination.js');
  const queue: Array<[string, unknown, ((sent: boolean) => void)?]> = [];
  let sending = false;
  let dropped = 0;
  const send = async () => {
    sending = true;
    while (queue.length && !relay.isClosed) {
      const batch = queue.slice(0, RELAY_BATCH_MAX);
      try {
        await relay.publishMany(batch.map(([w, m]) => [w, m]));
        for (const [, , done] of queue.splice(0, batch.length)) done?.(true);
      } catch (err) {
        const sent = err instanceof RelayFailure ? err.sent : 0;
        for (const [, , done] of queue.splice(0, sent)) done?.(true);
        logger.warn({ err: (err as Error).message, waiting: queue.length }, 'events could not be relayed to the other processes yet; trying again');
        await new Promise((r) => setTimeout(r, RELAY_RETRY_MS).unref?.());
      }
    }
    sending = false;
  };
  const tell = (workspace: string, message: unknown, done?: (sent: boolean) => void) => {
    const control = (message as Control).$control !== undefined;
    if (!control && queue.length >= RELAY_QUEUE_MAX) {
      if (dropped++ % 1000 === 0) logger.warn({ workspace, dropped }, 'events not relayed to the other processes: too many waiting');
      done?.(false);
      return;
    }
    queue.push([workspace, message, done]);
    // Sent on the next turn: the notice of the tables a write changed (told on the same turn as
    // its event) then goes in the same notification as the event.
    if (!sending) { sending = true; setImmediate(() => void send()); }
  };
  // Lists' totals are kept only while other processes' writes are heard (count-cache.ts): the
  // tables this process wrote to go out as one control message per turn of the event loop.
  relay.onLost = () => db.counts.forgetAll();
  db.counts.liveWhen(() => relay.listenerPid !== undefined);
  const written = new Set<string>();
  db.onWritten = (table) => {
    if (!written.size) setImmediate(() => { tell('', { $control: 'written', tables: [...written] }); written.clear(); });
    written.add(table);
  };
  const workspaces = new PgWorkspaces(db, (id) => tell(id, { $control: 'settings' }));
  const backend: PgBackend = {
    db, workspaces, relay,
    shared: true,
    origin: relay.origin,
    liveOrigins: (origins) => liveOrigins(db, origins),
    loginLimiter: config.loginRateLimit === false || config.loginRateLimit <= 0 ? undefined : new SharedLoginLimiter(db, config.loginRateLimit),
    claimTick: (workspace, scenarioId, tick) => claimTick(db, workspace, scenarioId, tick),
    changed: (id, what) => tell(id, { $control: what }),
    tell: (id, topic, data) => tell(id, { $control: 'peer', topic, data }),
    hear: (topic, handler) => { handlers.set(topic, handler); },
  };
  try {
    registry = await Registry.open(new PgEngine(backend, config.filesDir!), config.consoleToken);
  } catch (err) {
    await relay.close();
    throw err;
  }
  // An event stored with its write (the outbox) is settled once it went out to the other
  // processes and this process's webhooks stored its deliveries; its row then goes.
  const outbox = new Outbox(db, relay.origin);
  db.outbox = outbox;
  bus.forward = (event) => {
    const { outboxed, recovered: _r, ...message } = event;
    if (!outboxed) return tell(event.app, message);
    return new Promise<void>((resolve, reject) => tell(event.app, message, (sent) => (sent ? resolve() : reject(new Error('not relayed')))));
  };
  bus.settled = (event) => outbox.settled(event.id);
  startOutboxSweep(outbox, relay, async (origins) => {
    const live = await liveOrigins(db, origins);
    return new Set(origins.filter((o) => !live.has(o)));
  }, async (row) => {
    const ws = registry!.get(row.workspace) ?? await registry!.adopt(row.workspace);
    const event = JSON.parse(row.event) as BusEvent;
    if (!ws) { outbox.settled(row.id); return; } // the workspace is gone: nothing is owed
    bus.publish({ ...event, outboxed: true, recovered: true });
  });
  return registry;
}

/** Every OUTBOX_SWEEP_MS: the events of processes that are gone (and this process's own that it
 *  could not finish with) are claimed and dispatched here, oldest first. Stops with the relay. */
function startOutboxSweep(outbox: Outbox, relay: EventRelay, isGone: (origins: string[]) => Promise<Set<string>>, dispatch: (row: OutboxRow) => Promise<void>): void {
  let running = false;
  const timer = setInterval(() => {
    if (relay.isClosed) { clearInterval(timer); return; }
    if (running || relay.listenerPid === undefined) return; // cut off: this process may be the one thought gone
    running = true;
    void (async () => {
      const rows = await outbox.claim(isGone);
      for (const row of rows) await dispatch(row);
      if (rows.length) logger.info({ events: rows.length }, 'dispatched events left by a process that is gone');
    })().catch((err) => logger.warn({ err: (err as Error).message }, 'could not look for events left by other processes'))
      .finally(() => { running = false; });
  }, OUTBOX_SWEEP_MS);
  timer.unref();
}
