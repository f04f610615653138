// The workspaces API group (console API, console token): list, create, delete, admin tokens,
// forks (fork.ts), and a workspace's content as a whole (content-routes.ts). HTTP only.
import type { Router } from 'express';
import { z } from 'zod';
import type { AppContext, Module } from '../context.js';
import { parseBody } from '../../core/validate.js';
import { IdSchema } from '../../core/ids.js';
import { createWorkspace, mintAdminToken } from './service.js';
import { contentRoutes } from './content-routes.js';
import { ForkBody, forkWorkspace } from './fork.js';
import { startExpiries } from './fork-ttl.js';
import { publicUser } from '../users/index.js';
import { FirstAdminInput } from '../users/index.js';

const NewWorkspaceBody = z.object({
  _id: IdSchema,
  name: z.string().min(1).max(200).optional(),
  // The email may be left out: the service fills in the server's admin email, then checks it.
  admin: FirstAdminInput.partial({ email: true }).optional(),
});

export const workspacesModule: Module = {
  name: 'workspaces',
  consoleRoutes(router: Router, ctx: AppContext) {
    router.get('/workspaces', (_req, res) => {
      res.json({ data: ctx.registry.list(), meta: { total: ctx.registry.list().length, limit: ctx.registry.list().length, offset: 0 } });
    });

    router.post('/workspaces', async (req, res) => {
      const body = parseBody(NewWorkspaceBody, req.body);
      const { ws, admin, generatedPassword } = await createWorkspace(ctx, body);
      res.status(201).json({
        _id: ws.id, name: ws.settings.data.name, createdAt: ws.settings.data.createdAt,
        admin: { ...publicUser(admin), ...(generatedPassword ? { password: generatedPassword } : {}) },
      });
    });

    router.delete('/workspaces/:appId', async (req, res) => {
      await ctx.registry.delete(req.ws.id);
      res.status(204).end();
    });

    router.post('/workspaces/:appId/token', async (req, res) => {
      res.json(await mintAdminToken(ctx, req.ws));
    });

    router.post('/workspaces/:appId/fork', async (req, res) => {
      res.status(201).json(await forkWorkspace(ctx, req.ws, parseBody(ForkBody, req.body)));
    });

    contentRoutes(router, ctx);
  },

  start(ctx: AppContext) {
    return startExpiries(ctx);
  },
};
