// Batched webhooks (`batch: { maxEvents, maxWaitMs }`): the events a webhook wants gather in its
// open batch, one `webhook_batches` document per webhook, stored with every event so that an open
// batch survives a restart. The batch becomes one delivery, `{ id, type: "batch", timestamp,
// app, events: [...] }`, when it holds `maxEvents` or `maxWaitMs` after its first event (the
// workspace's time), whichever comes first; that delivery is then signed, logged and retried as
// a single event's is (delivery.ts). Turning a batch into its delivery is crash-safe: the
// delivery's id comes from the batch's, so a flush repeated after a crash stores it once.
import { createHash, randomUUID } from 'node:crypto';
import type { Workspace } from '../../storage/workspace.js';
import type { Doc } from '../../storage/query.js';
import type { Store } from '../../storage/store.js';
import { logger } from '../../core/logger.js';
import { BATCHES, type WebhookDoc } from './service.js';
import type { Envelope } from './envelopes.js';

interface BatchDoc {
  /** The webhook's id: one open batch per webhook. */
  _id: string;
  webhookId: string;
  /** This batch's own id (a new one for each batch of the webhook). */
  batchId: string;
  events: Envelope[];
  /** Epoch ms (workspace time) when the batch is sent however few events it holds. */
  dueAt: number;
  createdAt: string;
}

type Enqueue = (ws: Workspace, webhookId: string, event: Envelope, options: { id: string }) => Promise<string>;

/** The body of a batch's delivery. Its `id` is the `webhook-id` the receiver de-duplicates on. */
function batchEnvelope(ws: Workspace, batch: BatchDoc): Envelope {
  return { id: `batch_${batch.batchId}`, type: 'batch', timestamp: ws.nowIso(), app: ws.id, events: batch.events } as unknown as Envelope;
}

const deliveryIdOf = (batchId: string) => `b${createHash('sha256').update(batchId).digest('base64url').slice(0, 40)}`;

export class Batcher {
  private timers = new Map<string, { wsId: string; timer: NodeJS.Timeout }>();
  private stopped = false;

  constructor(private readonly enqueue: Enqueue) {}

  /** Adds an event to the webhook's open batch (opening one), and sends the batch when full. */
  async add(ws: Workspace, hook: WebhookDoc, event: Envelope): Promise<void> {
    const limits = hook.batch!;
    const store = await ws.store(BATCHES);
    const open = await store.exclusive(hook._id, async () => {
      const current = (await store.get(hook._id)) as unknown as BatchDoc | undefined;
      if (current?.events.some((e) => e.id === event.id)) return current; // stored by an earlier try
      const batch: BatchDoc = current
        ? { ...current, events: [...current.events, event] }
        : { _id: hook._id, webhookId: hook._id, batchId: randomUUID(), events: [event], dueAt: ws.now() + limits.maxWaitMs, createdAt: ws.nowIso() };
      if (batch.events.length >= limits.maxEvents) {
        await this.send(ws, store, batch, !!current);
        return undefined;
      }
      if (current) await store.replace(hook._id, batch as unknown as Doc);
      else await store.insert(batch as unknown as Doc);
      return batch;
    });
    if (open) this.schedule(ws, open);
  }

  /** Schedules the time limit of every open batch of a workspace (start, clock moved, content
   *  replaced); one already due is sent now. */
  async resume(ws: Workspace): Promise<void> {
    if (this.stopped) return;
    for (const b of (await (await ws.store(BATCHES)).all()) as unknown as BatchDoc[]) this.schedule(ws, b);
  }

  stopWorkspace(wsId: string): void {
    for (const [key, t] of this.timers) if (t.wsId === wsId) { clearTimeout(t.timer); this.timers.delete(key); }
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
  }

  /** A timer for the batch's time limit, in the workspace's time: none while a frozen clock has
   *  not reached it (moving the clock calls `resume`). */
  private schedule(ws: Workspace, batch: BatchDoc): void {
    if (this.stopped) return;
    const key = `${ws.id}\u0000${batch.batchId}`;
    const existing = this.timers.get(key);
    if (existing) clearTimeout(existing.timer);
    const left = batch.dueAt - ws.now();
    const clock = ws.settings.data.clock;
    if (left > 0 && clock && 'frozenAt' in clock) { this.timers.delete(key); return; }
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.flush(ws, batch.webhookId, batch.batchId).catch((err: unknown) => logger.error({ err, workspace: ws.id, webhook: batch.webhookId }, 'could not send a webhook batch'));
    }, Math.max(0, left));
    timer.unref?.();
    this.timers.set(key, { wsId: ws.id, timer });
  }

  /** Sends the batch if it is still open and due (another process or a full batch may have sent it). */
  private async flush(ws: Workspace, webhookId: string, batchId: string): Promise<void> {
    if (this.stopped) return;
    const store = await ws.store(BATCHES);
    const early = await store.exclusive(webhookId, async () => {
      const current = (await store.get(webhookId)) as unknown as BatchDoc | undefined;
      if (!current || current.batchId !== batchId) return undefined;
      if (current.dueAt > ws.now()) return current; // the clock was moved back: wait again
      await this.send(ws, store, current, true);
      return undefined;
    });
    if (early) this.schedule(ws, early);
  }

  private async send(ws: Workspace, store: Store, batch: BatchDoc, stored: boolean): Promise<void> {
    await this.enqueue(ws, batch.webhookId, batchEnvelope(ws, batch), { id: deliveryIdOf(batch.batchId) });
    if (stored) await store.remove(batch._id);
  }
}
