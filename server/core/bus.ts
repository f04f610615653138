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
}

export type BusListener = (event: BusEvent) => void | Promise<void>;

export class EventBus {
  private listeners = new Set<BusListener>();
  /** On PostgreSQL: sends each event published here (not relayed ones) to the other processes. */
  forward?: (event: BusEvent) => void;

  subscribe(listener: BusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(input: Omit<BusEvent, 'id' | 'timestamp'> & { id?: string; timestamp?: string }): BusEvent {
    const event: BusEvent = { id: input.id ?? `evt_${randomUUID()}`, timestamp: input.timestamp ?? new Date().toISOString(), ...input } as BusEvent;
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
    for (const listener of this.listeners) {
      try {
        const result = listener(event);
        if (result && typeof (result as Promise<void>).catch === 'function') {
          (result as Promise<void>).catch((err) => logger.error({ err, event: event.type }, 'event listener failed'));
        }
      } catch (err) {
        logger.error({ err, event: event.type }, 'event listener failed');
      }
    }
    if (!event.relayed) this.forward?.(event);
  }
}

interface Held { events: BusEvent[]; closed: boolean }
const heldEvents = new AsyncLocalStorage<Held>();

/** The envelope sent to webhooks and given to scenarios. */
export function envelope(event: BusEvent) {
  const { id, type, timestamp, app, data, collection } = event;
  return { id, type, timestamp, app, data, ...(collection !== undefined ? { collection } : {}) };
}
