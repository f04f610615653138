// A workspace's content as a whole (console API): reset, snapshots, export / import. HTTP only;
// the rules live beside it (reset.ts, snapshots.ts, dump.ts on the engine of state.ts).
import type { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { parseBody } from '../../core/validate.js';
import { jsonBody } from '../../core/http.js';
import { resetWorkspace } from './reset.js';
import { deleteSnapshot, listSnapshots, restoreSnapshot, takeSnapshot } from './snapshots.js';
import { exportWorkspace, importWorkspace } from './dump.js';

const ResetBody = z.object({ keepSchema: z.boolean().optional() });
const SnapshotBody = z.object({ name: z.string(), overwrite: z.boolean().optional() });

export function contentRoutes(router: Router, ctx: AppContext): void {
  router.post('/workspaces/:appId/reset', async (req, res) => {
    const body = parseBody(ResetBody, req.body);
    res.json(await resetWorkspace(ctx, req.ws, body));
  });

  router.get('/workspaces/:appId/snapshots', async (req, res) => {
    const data = await listSnapshots(ctx, req.ws);
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
    await deleteSnapshot(ctx, req.ws, req.params.name as string);
    res.status(204).end();
  });

  router.get('/workspaces/:appId/export', async (req, res) => {
    const dump = await exportWorkspace(ctx, req.ws);
    res.set('Content-Disposition', `attachment; filename="${req.ws.id}-export.json"`);
    res.json(dump);
  });

  // The console API's JSON parser skips this path: dumps may be far above the 1 MiB limit.
  router.post('/workspaces/:appId/import', jsonBody(ctx.config.importLimit, undefined, { flag: '--import-limit', option: 'importLimit' }), async (req, res) => {
    res.json({ imported: await importWorkspace(ctx, req.ws, req.body) });
  });
}
