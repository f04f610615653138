// The one event bus: every change in a workspace is published here, and webhooks, scenarios
// and realtime subscribe to it. Listeners run after the write is acknowledged and never throw
// into the publisher.
import { randomUUID } from 'node:crypto';
import { AsyncLocalStorage } from 'node:async_hooks';
import { logger } from './logger.js';
import type { EventType } from '../shared/events.js';

export interface Actor { _id: string; role: string; impersonatedBy?: string }

export interface BusEvent<T = Record<string, unknown>> {
  id: string;
  type: EventType;
  timestamp: string;
  app: string;
  data: T;
  /** Record events: the collection's id. */
  collection?: string;
  /** Who caused it (absent for anonymous or system changes). Not part of the webhook envelope. */
  actor?: Actor;
  /** How many scenario steps deep this change was caused (loop guard). Not part of the envelope. */
  depth?: number;
  /** Published by another process on the same database and relayed here: realtime hands it to
   *  this process's sockets; webhooks and scenarios leave it to the process that published it. */
  relayed?: boolean;
  /** Stored with the write that caused it, in the write's transaction (PostgreSQL's outbox): set
   *  by the driver that stored it. Once the listeners owed the event (webhooks) and the relay to
   *  the other processes are done with it, `settled` is told, and the stored copy can go. */
  outboxed?: boolean;
  /** Published again by a live process for a process that died before its listeners and relay
   *  were done with it: webhooks store its deliveries (once per event and webhook whoever does
   *  it), realtime and the relay pass it on; scenarios leave it (they act at most once). */
  recovered?: boolean;
}

export type BusListener = (event: BusEvent) => void | Promise<void>;

export class EventBus {
  private listeners = new Set<BusListener>();
  /** Listeners whose work an event is owed (webhooks store its deliveries): an outboxed event is
   *  settled only once their promises have resolved. */
  private owed = new Set<BusListener>();
  /** On PostgreSQL: sends each event published here (not relayed ones) to the other processes;
   *  resolves once it went out. */
  forward?: (event: BusEvent) => Promise<void> | void;
  /** On PostgreSQL: told of an outboxed event once its owed listeners and the relay are done with
   *  it (not when one of them failed: the stored copy then stays for a live process to take). */
  settled?: (event: BusEvent) => void;

  /** `owed`: the event's side effects this listener makes must be made even if this process
   *  dies right after the write (its promise says when they are stored). */
  subscribe(listener: BusListener, options: { owed?: boolean } = {}): () => void {
    this.listeners.add(listener);
    if (options.owed) this.owed.add(listener);
    return () => { this.listeners.delete(listener); this.owed.delete(listener); };
  }

  publish(input: Omit<BusEvent, 'id' | 'timestamp'> & { id?: string; timestamp?: string }): BusEvent {
    const event: BusEvent = { id: input.id ?? newEventId(), timestamp: input.timestamp ?? new Date().toISOString(), ...input } as BusEvent;
    const held = heldEvents.getStore();
    if (held && !held.closed) { held.events.push(event); return event; }
    this.deliver(event);
    return event;
  }

  /** Runs `fn` holding back the events published within it (in its async context): once it
   *  is done they are delivered in order if `release` says so, else dropped, so that the
   *  changes of a group undone as a whole are never seen by webhooks, scenarios or sockets. */
  async hold<T>(fn: () => Promise<T>, release: (value: T) => boolean): Promise<T> {
    const held: Held = { events: [], closed: false };
    let value: T;
    try {
      value = await heldEvents.run(held, fn);
    } finally {
      held.closed = true;
    }
    if (release(value)) for (const event of held.events) this.deliver(event);
    return value;
  }

  private deliver(event: BusEvent): void {
    // Every record write publishes an event: made without an array or Promise.all when at most
    // one owed promise is to be waited for (the usual case: the webhooks' listener).
    let owed: Promise<unknown> | Array<Promise<unknown>> | undefined;
    const owe = (p: Promise<unknown>) => { owed = owed === undefined ? p : Array.isArray(owed) ? [...owed, p] : [owed, p]; };
    let failed = false;
    for (const listener of this.listeners) {
      const isOwed = event.outboxed && this.owed.has(listener);
      try {
        const result = listener(event);
        if (result && typeof (result as Promise<void>).catch === 'function') {
          const done = (result as Promise<void>).catch((err) => { if (isOwed) failed = true; logger.error({ err, event: event.type }, 'event listener failed'); });
          if (isOwed) owe(done);
        }
      } catch (err) {
        if (isOwed) failed = true;
        logger.error({ err, event: event.type }, 'event listener failed');
      }
    }
    if (!event.relayed) {
      const sent = this.forward?.(event);
      if (sent && event.outboxed) owe(sent.catch(() => { failed = true; }));
    }
    if (event.outboxed && this.settled) {
      const settled = this.settled;
      const then = () => { if (!failed) settled(event); };
      if (owed === undefined) void Promise.resolve().then(then);
      else if (Array.isArray(owed)) void Promise.all(owed).then(then);
      else void owed.then(then);
    }
  }
}

/** A new event id (`evt_<uuid>`): an event stored with its write is given its id before it. */
export function newEventId(): string {
  return `evt_${randomUUID()}`;
}

interface Held { events: BusEvent[]; closed: boolean }
const heldEvents = new AsyncLocalStorage<Held>();

/** The envelope sent to webhooks and given to scenarios. */
export function envelope(event: BusEvent) {
  const { id, type, timestamp, app, data, collection } = event;
  return { id, type, timestamp, app, data, ...(collection !== undefined ? { collection } : {}) };
}
