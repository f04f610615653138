// Request bodies of the webhooks API, and the event-pattern rule scenarios share.
import { z } from 'zod';
import { EVENT_TYPES } from '../../shared/events.js';
import { MatchObject } from './filter.js';

const PREFIXES = [...new Set(EVENT_TYPES.map((t) => t.split('.')[0]))];

/** `*`, a known event kind, or `<group>.*` for a known group (`record.*`). */
export function isEventPattern(p: string): boolean {
  if (p === '*') return true;
  if (p.endsWith('.*')) return PREFIXES.includes(p.slice(0, -2));
  return (EVENT_TYPES as readonly string[]).includes(p);
}

export const EventPatterns = z.array(z.string().refine(isEventPattern, {
  message: `must be '*', an event kind (${EVENT_TYPES.join(', ')}) or a group pattern (${PREFIXES.map((p) => `${p}.*`).join(', ')})`,
})).min(1).max(50);

/** `filter: { collection }` narrows record events to one collection; null (on edit) removes it. */
export const EventFilter = z.object({ collection: z.string().min(1).max(64) }).strict();

export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** A webhook's filter: `collection` as above, and `match`, conditions on the event's data in the
 *  list filter's language (filter.ts). */
export const WebhookFilter = z.object({ collection: z.string().min(1).max(64).optional(), match: MatchObject.optional() }).strict();

/** Events sent together: one delivery of up to `maxEvents`, sent when full or `maxWaitMs` after
 *  its first event (batches.ts). */
export const MAX_BATCH_EVENTS = 100;
export const MAX_BATCH_WAIT_MS = 3_600_000;
export const WebhookBatch = z.object({
  maxEvents: z.number().int().min(1).max(MAX_BATCH_EVENTS),
  maxWaitMs: z.number().int().min(1).max(MAX_BATCH_WAIT_MS),
}).strict();

const url = z.url({ protocol: /^https?$/, message: 'must be an absolute http:// or https:// URL' }).max(2048).refine(isHttpUrl, { message: 'must be an absolute http:// or https:// URL' });
const name = z.string().min(1).max(200);

export const NewWebhookBody = z.object({
  name,
  url,
  events: EventPatterns,
  active: z.boolean().optional(),
  filter: WebhookFilter.optional(),
  batch: WebhookBatch.optional(),
});

export const WebhookChangesBody = z.object({
  name: name.optional(),
  url: url.optional(),
  events: EventPatterns.optional(),
  active: z.boolean().optional(),
  filter: WebhookFilter.nullable().optional(),
  batch: WebhookBatch.nullable().optional(),
});

/** `PUT` that replaces the webhook (v2): what a creation takes (`name`, `url`, `events`
 *  required), `null` standing for an absent `filter` or `batch`. */
export const ReplaceWebhookBody = NewWebhookBody.extend({
  filter: WebhookFilter.nullable().optional(),
  batch: WebhookBatch.nullable().optional(),
});

/** A webhook as an import or a seed gives it: what `POST /webhooks` accepts (name optional),
 *  plus the optional signing secret a test suite may fix so that it can verify signatures (an
 *  export never carries it). */
export const DumpWebhook = NewWebhookBody.extend({
  name: name.optional(),
  secret: z.string().refine(isWebhookSecret, { message: "must be 'whsec_' followed by the base64 of 24 to 64 random bytes" }).optional(),
});

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** `whsec_` + base64 of 24 to 64 bytes (the Standard Webhooks secret format). */
export function isWebhookSecret(v: string): boolean {
  const b64 = v.startsWith('whsec_') ? v.slice(6) : '';
  if (b64.length === 0 || b64.length % 4 !== 0 || !BASE64.test(b64)) return false;
  const bytes = Buffer.byteLength(b64, 'base64');
  return bytes >= 24 && bytes <= 64;
}

export type NewWebhook = z.infer<typeof NewWebhookBody>;
export type WebhookChanges = z.infer<typeof WebhookChangesBody>;
