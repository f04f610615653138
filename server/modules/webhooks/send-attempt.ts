// One attempt on the wire: the request signed per Standard Webhooks (or failed by a webhook fault
// rule of the workspace, when one matches: nothing is then sent), and the log entry that records
// its outcome and, on failure, when it is tried again.
import { Webhook as Signer } from 'standardwebhooks';
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import { newId } from '../../core/ids.js';
import { webhookFault } from '../faults/index.js';
import { sendRequest, describeRequestError } from '../../core/outbound-http.js';
import { signingSecret, type WebhookDoc } from './service.js';
import { boundedBody } from './envelopes.js';
import type { DeliveryDoc, LogEntry } from './delivery-records.js';

/** Response bodies are logged up to this many bytes. */
const RESPONSE_BODY_LIMIT = 4096;

interface Outcome { status?: number; body?: string; error?: string; durationMs: number }

/** What an attempt sent and what came back. */
export interface Sent {
  headers: Record<string, string>;
  body: string;
  outcome: Outcome;
  fault?: { rule: number };
}

/** Sends a delivery's attempt to its webhook (or fails it by the workspace's fault rule). */
export async function sendAttempt(ctx: AppContext, ws: Workspace, delivery: DeliveryDoc, hook: WebhookDoc, signal: AbortSignal): Promise<Sent> {
  const body = JSON.stringify(delivery.event);
  const sentAt = new Date();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': `Homebase-Webhooks/${ctx.config.version}`,
    'webhook-id': delivery.eventId,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    'webhook-signature': new Signer(signingSecret(ws, hook)).sign(delivery.eventId, sentAt, body),
  };
  // A webhook fault rule (a test suite's) fails the attempt as if the receiver had answered
  // its status: nothing is sent, and the retries follow as for any failure.
  const fault = webhookFault(ctx, ws);
  if (fault) {
    const error = `Injected fault: rule ${fault.rule} of this workspace's faults answered HTTP ${fault.status}; nothing was sent`;
    return { headers, body, outcome: { status: fault.status, body: '', error, durationMs: 0 }, fault: { rule: fault.rule } };
  }
  return { headers, body, outcome: await post(hook.url, headers, body, ctx.config.webhookTimeout, signal) };
}

/** The log entry of an attempt; `nextAttemptAt` is when it is retried (undefined: not again). */
export function attemptLogEntry(ws: Workspace, delivery: DeliveryDoc, hook: WebhookDoc, sent: Sent, nextAttemptAt: number | undefined): LogEntry {
  const { outcome } = sent;
  const ok = succeeded(sent);
  return {
    _id: newId(), webhookId: hook._id, eventId: delivery.eventId, event: delivery.event.type, attempt: delivery.attempt,
    status: ok ? 'succeeded' : 'failed', durationMs: outcome.durationMs,
    error: ok ? null : (outcome.error ?? `Receiver answered HTTP ${outcome.status}`),
    request: { url: hook.url, headers: sent.headers, ...boundedBody(sent.body) },
    response: outcome.status === undefined ? null : { status: outcome.status, body: outcome.body ?? '' },
    nextAttemptAt: nextAttemptAt === undefined ? null : new Date(nextAttemptAt).toISOString(),
    ...(delivery.redeliveryOf ? { redeliveryOf: delivery.redeliveryOf } : {}),
    ...(sent.fault ? { fault: sent.fault } : {}),
    createdAt: ws.nowIso(),
  };
}

/** The receiver answered 2xx. */
export function succeeded(sent: Sent): boolean {
  const { status } = sent.outcome;
  return status !== undefined && status >= 200 && status < 300;
}

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
