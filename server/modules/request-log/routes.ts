// The request log API group (console API): a workspace's recent requests through the standard
// list query, one request's detail, and the live tail. HTTP only; the log itself is
// request-log.ts, the tail's stream tail.ts.
import type { Router } from 'express';
import type { AppContext, Module } from '../context.js';
import { parseListQuery, listMeta } from '../../core/list-query.js';
import { queryDocs, type Doc } from '../../storage/query.js';
import type { FieldType } from '../../shared/models.js';
import { ApiError } from '../../core/errors.js';
import { requestDetail, requestLog } from './request-log.js';
import { endTails, tailHandler } from './tail.js';
import { startLogFiles } from './log-file.js';

/** Filter coercion for request-log entries (`filter[status]=401` matches the number). */
const REQUEST_TYPES: Record<string, FieldType> = {
  _id: 'string', method: 'string', path: 'string', status: 'integer', durationMs: 'number', time: 'date', accessRule: 'string', console: 'boolean',
  'fault.rule': 'integer', 'fault.status': 'integer', 'fault.latencyMs': 'integer',
};

export const requestLogModule: Module = {
  name: 'request-log',
  consoleRoutes(router: Router, ctx: AppContext) {
    // The standard list query over the log, newest first unless `sort` says otherwise.
    router.get('/workspaces/:appId/requests', (req, res) => {
      const q = parseListQuery(req.query as Record<string, unknown>, { typeOf: (p) => REQUEST_TYPES[p] });
      const { data, total } = queryDocs(requestLog(ctx, req.ws) as unknown as Doc[], q);
      res.json({ data, meta: listMeta(total, q) });
    });

    // The live tail (server-sent events); before the detail route, which would take 'stream' as an id.
    router.get('/workspaces/:appId/requests/stream', tailHandler(ctx, REQUEST_TYPES));

    // One request with its headers (Authorization and other credentials hidden).
    router.get('/workspaces/:appId/requests/:requestId', (req, res) => {
      const detail = requestDetail(ctx, req.ws, req.params.requestId as string);
      if (!detail) throw ApiError.notFound('Request', req.params.requestId as string);
      res.json(detail);
    });
  },

  async start(ctx: AppContext) {
    await startLogFiles(ctx);
    await ctx.registry.listen({ closing: (ws) => endTails(ctx, ws), deleted: (ws) => endTails(ctx, ws) });
    ctx.closers.push(() => endTails(ctx));
  },
};
