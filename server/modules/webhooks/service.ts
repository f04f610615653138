// Webhooks: CRUD over the `webhooks` store, their signing secrets (sealed at rest, shown once)
// and which events they receive. Delivery itself lives in delivery.ts (the queue), send-attempt.ts
// (one attempt), delivery-records.ts (what it stores) and envelopes.ts (what it sends).
import { randomBytes } from 'node:crypto';
import type { Workspace } from '../../storage/workspace.js';
import type { Doc, StoreQuery } from '../../storage/query.js';
import type { Store } from '../../storage/store.js';
import type { BusEvent } from '../../core/bus.js';
import { eventMatches } from '../../shared/events.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { seal, unseal } from '../../core/crypto.js';
import { NewWebhookBody, ReplaceWebhookBody, WebhookChangesBody } from './schemas.js';
import { replacedDoc, type ChangeMode } from '../../core/change-mode.js';
import { parseBody } from '../../core/validate.js';
import { SERVER_FIELDS, withoutReadOnly } from '../../core/read-only.js';

export interface Webhook {
  _id: string;
  name: string;
  url: string;
  events: string[];
  active: boolean;
  filter?: { collection?: string; match?: Record<string, unknown> };
  batch?: { maxEvents: number; maxWaitMs: number };
  createdAt: string;
  updatedAt: string;
}

/** Stored: `filter.match` as its JSON text, `matchJson` (its keys, `$gte` or `a.b`, are not keys
 *  a store may hold). */
export interface WebhookDoc extends Omit<Webhook, 'filter'> { sealedSecret: string; filter?: StoredFilter }
export interface StoredFilter { collection?: string; matchJson?: string }

/** A filter as the API gives it, in its stored form. */
export function storedFilter(filter: { collection?: string; match?: Record<string, unknown> }): StoredFilter {
  return {
    ...(filter.collection !== undefined ? { collection: filter.collection } : {}),
    ...(filter.match !== undefined ? { matchJson: JSON.stringify(filter.match) } : {}),
  };
}

export const WEBHOOKS = 'webhooks';
export const DELIVERIES = 'webhook_deliveries';
export const LOGS = 'webhook_logs';
/** Open batches (one per batching webhook, its id as the document's). */
export const BATCHES = 'webhook_batches';

export function webhookStore(ws: Workspace): Promise<Store> { return ws.store(WEBHOOKS); }

export function publicWebhook(doc: Doc | WebhookDoc): Webhook {
  const d = doc as unknown as WebhookDoc;
  return {
    _id: d._id, name: d.name, url: d.url, events: [...d.events], active: d.active,
    ...(d.filter ? { filter: {
      ...(d.filter.collection !== undefined ? { collection: d.filter.collection } : {}),
      ...(d.filter.matchJson !== undefined ? { match: JSON.parse(d.filter.matchJson) as Record<string, unknown> } : {}),
    } } : {}),
    ...(d.batch ? { batch: { maxEvents: d.batch.maxEvents, maxWaitMs: d.batch.maxWaitMs } } : {}),
    createdAt: d.createdAt, updatedAt: d.updatedAt,
  };
}

/** Does this webhook (or scenario trigger) want this event? `filter.collection` only lets record
 *  events of that collection through. (A webhook's `filter.match` is checked on the event's data
 *  by the deliverer: filter.ts.) */
export function wantsEvent(spec: { events: string[]; filter?: { collection?: string } | null }, event: Pick<BusEvent, 'type' | 'collection'>): boolean {
  if (!spec.events.some((p) => eventMatches(p, event.type))) return false;
  if (spec.filter?.collection !== undefined && spec.filter.collection !== event.collection) return false;
  return true;
}

export async function listWebhooks(ws: Workspace, q: StoreQuery): Promise<{ data: Webhook[]; total: number }> {
  const { data, total } = await (await webhookStore(ws)).find({ ...q, fields: undefined });
  return { total, data: data.map((d) => project(publicWebhook(d), q.fields)) };
}

export async function getWebhookDoc(ws: Workspace, id: string): Promise<WebhookDoc> {
  const doc = (await (await webhookStore(ws)).get(id));
  if (!doc) throw ApiError.notFound('Webhook', id);
  return doc as unknown as WebhookDoc;
}

/** Creates a webhook from a client's body (server-managed fields refused, then checked); the
 *  signing secret is returned here and never again. */
export async function createWebhook(ws: Workspace, body: unknown): Promise<Webhook & { secret: string }> {
  const input = parseBody(NewWebhookBody, withoutReadOnly(body, SERVER_FIELDS));
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const now = ws.nowIso();
  const doc: WebhookDoc = { _id: newId(), ...webhookFields(input), sealedSecret: seal(ws, secret), createdAt: now, updatedAt: now };
  const saved = await (await webhookStore(ws)).insert(doc as unknown as Doc);
  return { ...publicWebhook(saved), secret };
}

/** The client's part of a webhook, as a creation or a replacement gives it: `active` defaults
 *  to true, `filter` and `batch` are left out when absent (or null). */
function webhookFields(input: { name: string; url: string; events: string[]; active?: boolean; filter?: Webhook['filter'] | null; batch?: Webhook['batch'] | null }) {
  return {
    name: input.name, url: input.url, events: input.events, active: input.active ?? true,
    ...(input.filter ? { filter: storedFilter(input.filter) } : {}),
    ...(input.batch ? { batch: input.batch } : {}),
  };
}

/** The keys of a webhook a client writes; the others (`sealedSecret`, stamps) are the server's. */
const WEBHOOK_FIELDS = Object.keys(NewWebhookBody.shape);

/** A change from a client's body: a partial update (`merge`) or the whole webhook (`replace`:
 *  `name`, `url`, `events` required, the rest back to its creation default; the signing secret
 *  kept). A server-managed field may repeat its current value, never change it. */
export async function updateWebhook(ws: Workspace, id: string, body: unknown, mode: ChangeMode = 'merge'): Promise<Webhook> {
  // Alone among the changes to this webhook: concurrent changes apply one after another.
  return (await webhookStore(ws)).exclusive(id, () => applyWebhookUpdate(ws, id, body, mode));
}

async function applyWebhookUpdate(ws: Workspace, id: string, body: unknown, mode: ChangeMode): Promise<Webhook> {
  const current = await getWebhookDoc(ws, id);
  const given = withoutReadOnly(body, SERVER_FIELDS, publicWebhook(current));
  if (mode === 'replace') {
    const input = parseBody(ReplaceWebhookBody, given);
    const next = replacedDoc(current, WEBHOOK_FIELDS, { ...webhookFields(input), updatedAt: ws.nowIso() });
    return saveWebhook(ws, id, next);
  }
  const changes = parseBody(WebhookChangesBody, given);
  const { filter, batch, ...rest } = changes;
  const next: WebhookDoc = { ...current, ...stripUndefined(rest), updatedAt: ws.nowIso() };
  if (filter === null) delete next.filter;
  else if (filter !== undefined) next.filter = storedFilter(filter);
  if (batch === null) delete next.batch;
  else if (batch !== undefined) next.batch = batch;
  return saveWebhook(ws, id, next);
}

async function saveWebhook(ws: Workspace, id: string, next: WebhookDoc): Promise<Webhook> {
  const saved = await (await webhookStore(ws)).replace(id, next as unknown as Doc);
  if (!saved) throw ApiError.notFound('Webhook', id);
  return publicWebhook(saved);
}

/** Deletes a webhook with its pending deliveries and its logs. */
export async function deleteWebhook(ws: Workspace, id: string): Promise<void> {
  const store = await webhookStore(ws);
  if (!(await store.exclusive(id, () => store.remove(id)))) throw ApiError.notFound('Webhook', id);
  await (await ws.store(DELIVERIES)).removeWhere([{ path: 'webhookId', op: '$eq', values: [id] }]);
  await (await ws.store(LOGS)).removeWhere([{ path: 'webhookId', op: '$eq', values: [id] }]);
  await (await ws.store(BATCHES)).remove(id); // its open batch, if any
}

export function signingSecret(ws: Workspace, hook: WebhookDoc): string {
  return unseal(ws, hook.sealedSecret);
}

function stripUndefined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function project<T extends { _id: string }>(doc: T, fields: string[] | undefined): T {
  if (!fields) return doc;
  const out: Record<string, unknown> = { _id: doc._id };
  for (const f of fields) if (f in doc) out[f] = (doc as Record<string, unknown>)[f];
  return out as T;
}
