// What the delivery queue stores: a pending delivery (`webhook_deliveries`, one per pending
// webhook and event, with its next attempt number and time, so pending deliveries and retries
// survive a restart) and a log entry per attempt (`webhook_logs`, the newest 1000 per webhook).
import { createHash } from 'node:crypto';
import type { Workspace } from '../../storage/workspace.js';
import type { Doc } from '../../storage/query.js';
import { withIndexes } from '../../storage/store.js';
import { LOGS } from './service.js';
import type { Envelope } from './envelopes.js';

/** Log entries kept per webhook; older ones are dropped. */
export const LOGS_PER_WEBHOOK = 1000;

export interface DeliveryDoc {
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

/** The id of the delivery of one event to one webhook: the same however often it is stored. */
export function deliveryIdOf(eventId: string, webhookId: string): string {
  return `d${createHash('sha256').update(`${eventId}\u0000${webhookId}`).digest('base64url').slice(0, 40)}`;
}

/** Stores a log entry and drops the webhook's oldest past LOGS_PER_WEBHOOK. */
export async function writeLog(ws: Workspace, entry: LogEntry): Promise<void> {
  const logs = await withIndexes(await ws.store(LOGS), [{ fieldName: 'webhookId' }]);
  await logs.insert(entry as unknown as Doc);
  const mine = { path: 'webhookId', op: '$eq' as const, values: [entry.webhookId] };
  const { total } = await logs.find({ conditions: [mine], sort: [], limit: 0, offset: 0 });
  if (total > LOGS_PER_WEBHOOK) {
    const oldest = await logs.find({ conditions: [mine], sort: [{ path: 'createdAt', dir: 1 }], limit: total - LOGS_PER_WEBHOOK, offset: 0 });
    await logs.removeWhere([{ path: '_id', op: '$in', values: oldest.data.map((d) => d._id) }]);
  }
}
