// The webhooks API group: CRUD (admin), delivery logs, test events; and the
// delivery queue's wiring to the bus and the workspace lifecycle.
import type { Router } from 'express';
import type { AppContext, Module } from '../context.js';
import { adminOnly } from '../caller.js';
import { parseBody } from '../../core/validate.js';
import { listMeta, parseListQuery } from '../../core/list-query.js';
import { crudRoutes } from '../crud-routes.js';
import { ApiError } from '../../core/errors.js';
import { createWebhook, deleteWebhook, getWebhookDoc, listWebhooks, publicWebhook, updateWebhook, LOGS } from './service.js';
import { startTakeover } from './takeover.js';
import { Deliverer } from './delivery.js';
import { loggedEnvelope, testEnvelope } from './envelopes.js';
import type { LogEntry } from './delivery-records.js';
import { onClockMove } from '../clock/index.js';

function delivererOf(ctx: AppContext): Deliverer {
  return ctx.state.webhooks.deliverer ??= new Deliverer(ctx);
}

export const webhooksModule: Module = {
  name: 'webhooks',

  workspaceRoutes(router: Router, ctx: AppContext) {
    // Administrators only, the whole group.
    const admin = adminOnly(router);
    crudRoutes(admin, '/webhooks', {
      list: listWebhooks,
      create: (req, body) => createWebhook(req.ws, body),
      get: async (ws, id) => publicWebhook(await getWebhookDoc(ws, id)),
      update: (req, id, body, mode) => updateWebhook(req.ws, id, body, mode),
      remove: (req, id) => deleteWebhook(req.ws, id),
    });

    admin.get('/webhooks/:id/logs', async (req, res) => {
      const hook = await getWebhookDoc(req.ws, req.params.id as string);
      const q = parseListQuery(req.query, { defaultSort: [{ path: 'createdAt', dir: -1 }] });
      const { data, total } = await (await req.ws.store(LOGS)).find({
        ...q, conditions: [{ path: 'webhookId', op: '$eq', values: [hook._id] }, ...q.conditions],
      });
      res.json({ data, meta: listMeta(total, q) });
    });

    // Sends a `webhook.test` event to this webhook now, whatever its events (and even while
    // inactive); answers with the log entry of the first attempt. Failed tests are retried like any delivery.
    admin.post('/webhooks/:id/test', async (req, res) => {
      const hook = await getWebhookDoc(req.ws, req.params.id as string);
      const deliverer = delivererOf(ctx);
      const id = await deliverer.enqueue(req.ws, hook._id, testEnvelope(req.ws, hook._id), { test: true, schedule: false });
      const entry = await deliverer.attemptNow(req.ws, id);
      if (!entry) throw ApiError.unavailable('The server is shutting down');
      res.json(entry);
    });

    // Sends a logged attempt's event again now: the same event id (receivers de-duplicate on
    // it), signed anew, as a new delivery (retried like any, and sent even while the webhook is
    // inactive, since an admin asked); answers with the log entry of its first attempt.
    admin.post('/webhooks/:id/logs/:logId/redeliver', async (req, res) => {
      const hook = await getWebhookDoc(req.ws, req.params.id as string);
      const logId = req.params.logId as string;
      const logged = (await (await req.ws.store(LOGS)).get(logId)) as unknown as LogEntry | undefined;
      if (!logged || logged.webhookId !== hook._id) throw ApiError.notFound('Log entry', logId);
      const event = loggedEnvelope(logged);
      const deliverer = delivererOf(ctx);
      const id = await deliverer.enqueue(req.ws, hook._id, event, { test: true, schedule: false, redeliveryOf: logged._id });
      const entry = await deliverer.attemptNow(req.ws, id);
      if (!entry) throw ApiError.unavailable('The server is shutting down');
      res.json(entry);
    });
  },

  async start(ctx: AppContext) {
    const deliverer = delivererOf(ctx);
    // Owed: an event stored with its write is settled only once its deliveries are stored.
    ctx.bus.subscribe((event) => deliverer.onEvent(event), { owed: true });
    ctx.closers.push(() => deliverer.stop());
    // The workspace's clock moved: retries it made due are attempted now, the others wait anew.
    onClockMove(ctx, (ws) => deliverer.resume(ws));
    await ctx.registry.listen({
      opened: (ws) => deliverer.resume(ws),
      closing: (ws) => deliverer.stopWorkspace(ws.id),
      replaced: async (ws) => { await deliverer.stopWorkspace(ws.id); await deliverer.resume(ws); },
    });
    await startTakeover(ctx, deliverer);
  },
};
