// The clock API group (console API, console token): a workspace's clock read, set, moved and
// returned to real time. HTTP only; the rules are in service.ts.
import type { Router } from 'express';
import { z } from 'zod';
import type { AppContext, Module } from '../context.js';
import { parseBody } from '../../core/validate.js';
import { settingRoutes } from '../crud-routes.js';
import { advance, CLOCK_TOPIC, clockMoved, putClock, readClock, realTime } from './service.js';

/** `now` is an ISO 8601 date-time with a time zone (`Z` or an offset). */
const ClockBody = z.strictObject({
  now: z.iso.datetime({ offset: true }).optional(),
  frozen: z.boolean().optional(),
});

/** At most about a hundred years in one move. */
const MAX_ADVANCE_MS = 100 * 366 * 24 * 3600 * 1000;
const AdvanceBody = z.strictObject({ ms: z.number().int().min(0).max(MAX_ADVANCE_MS) });

export const clockModule: Module = {
  name: 'clock',
  consoleRoutes(router: Router, ctx: AppContext) {
    settingRoutes(router, '/workspaces/:appId/clock', {
      get: (req) => readClock(req.ws),
      put: (req, raw) => {
        const body = parseBody(ClockBody, raw);
        return putClock(ctx, req.ws, { ...(body.now !== undefined ? { now: Date.parse(body.now) } : {}), ...(body.frozen !== undefined ? { frozen: body.frozen } : {}) });
      },
      clear: (req) => realTime(ctx, req.ws),
    });

    router.post('/workspaces/:appId/clock/advance', async (req, res) => {
      const body = parseBody(AdvanceBody, req.body);
      res.json(await advance(ctx, req.ws, body.ms));
    });
  },
  start(ctx: AppContext) {
    // Another process on the same database moved a workspace's clock (its settings, read again
    // before this message arrives, hold the new setting).
    ctx.registry.processes.hear(CLOCK_TOPIC, (ws) => clockMoved(ctx, ws, false));
  },
};
