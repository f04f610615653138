// What a delivery sends: the envelope of an event (without anything that must never leave the
// server), bounded to 64 KiB so a pending delivery stays small; the test event; and the event a
// log entry sent, read back to send it again.
import { randomUUID } from 'node:crypto';
import type { BusEvent } from '../../core/bus.js';
import { envelope } from '../../core/bus.js';
import type { Workspace } from '../../storage/workspace.js';
import { ApiError } from '../../core/errors.js';
import type { LogEntry } from './delivery-records.js';

/** Request bodies are stored (pending deliveries, logs) up to this many bytes. */
export const REQUEST_BODY_LIMIT = 64 * 1024;

export type Envelope = ReturnType<typeof envelope>;

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

/** A request body as logged: its first 64 KiB, marked when that was not all of it. */
export function boundedBody(body: string): { body: string; bodyTruncated?: boolean } {
  if (body.length <= REQUEST_BODY_LIMIT / 4 || Buffer.byteLength(body) <= REQUEST_BODY_LIMIT) return { body };
  let cut = body.slice(0, REQUEST_BODY_LIMIT);
  while (Buffer.byteLength(cut) > REQUEST_BODY_LIMIT) cut = cut.slice(0, -1024);
  return { body: cut, bodyTruncated: true };
}
