// The testing API group (console API, CONTRACT §2): reset, snapshots, export / import and the
// request log of a workspace. HTTP only; the rules live beside it.
import type { Router } from 'express';
import { z } from 'zod';
import type { AppContext, Module } from '../../core/context.js';
import { parseBody } from '../../core/validate.js';
import { jsonBody } from '../../core/http.js';
import { parseListQuery, listMeta } from '../../core/list-query.js';
import { resetWorkspace } from './reset.js';
import { deleteSnapshot, listSnapshots, restoreSnapshot, takeSnapshot } from './snapshots.js';
import { exportWorkspace, importWorkspace } from './dump.js';
import { requestLog } from './request-log.js';
import { compileMatcher, comparator, project, type Doc } from '../../storage/query.js';
import type { FieldType } from '../../shared/models.js';

/** Filter coercion for request-log entries (`filter[status]=401` matches the number). */
const REQUEST_TYPES: Record<string, FieldType> = {
  _id: 'string', method: 'string', path: 'string', status: 'integer', durationMs: 'number', time: 'date', accessRule: 'string',
};

const ResetBody = z.object({ keepSchema: z.boolean().optional() });
const SnapshotBody = z.object({ name: z.string(), overwrite: z.boolean().optional() });

export const testingModule: Module = {
  name: 'testing',
  consoleRoutes(router: Router, ctx: AppContext) {
    router.post('/workspaces/:appId/reset', async (req, res) => {
      const body = parseBody(ResetBody, req.body);
      res.json(await resetWorkspace(ctx, req.ws, body));
    });

    router.get('/workspaces/:appId/snapshots', async (req, res) => {
      const data = await listSnapshots(req.ws);
      res.json({ data, meta: { total: data.length, limit: data.length, offset: 0 } });
    });

    router.post('/workspaces/:appId/snapshots', async (req, res) => {
      const body = parseBody(SnapshotBody, req.body);
      res.status(201).json(await takeSnapshot(ctx, req.ws, body.name, body.overwrite));
    });

    router.post('/workspaces/:appId/snapshots/:name/restore', async (req, res) => {
      res.json(await restoreSnapshot(ctx, req.ws, req.params.name as string));
    });

    router.delete('/workspaces/:appId/snapshots/:name', async (req, res) => {
      await deleteSnapshot(req.ws, req.params.name as string);
      res.status(204).end();
    });

    router.get('/workspaces/:appId/export', async (req, res) => {
      const dump = await exportWorkspace(ctx, req.ws);
      res.set('Content-Disposition', `attachment; filename="${req.ws.id}-export.json"`);
      res.json(dump);
    });

    // The console API's JSON parser skips this path: dumps may be far above the 1 MiB limit.
    router.post('/workspaces/:appId/import', jsonBody(ctx.config.importLimit), async (req, res) => {
      res.json({ imported: await importWorkspace(ctx, req.ws, req.body) });
    });

    // The standard list query (CONTRACT §6) over the log, newest first unless `sort` says otherwise.
    router.get('/workspaces/:appId/requests', (req, res) => {
      const q = parseListQuery(req.query as Record<string, unknown>, { typeOf: (p) => REQUEST_TYPES[p] });
      const all = (requestLog(req.ws) as unknown as Doc[]).filter(compileMatcher(q.conditions));
      if (q.sort.length) all.sort(comparator(q.sort));
      const page = q.limit === 0 ? [] : all.slice(q.offset, q.offset + q.limit);
      res.json({ data: q.fields ? page.map((e) => project(e, q.fields!)) : page, meta: listMeta(all.length, q) });
    });
  },
};
