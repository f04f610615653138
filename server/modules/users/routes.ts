// The users API group: user administration for administrators (list, get, create, partial
// update with PATCH and v1's PUT, whole replacement with v2's PUT, delete). Non-admins get 403, anonymous callers 401.
import type { Request, Response, Router } from 'express';
import type { AppContext, Module } from '../context.js';
import { actorOf, adminOnly, requireUser } from '../caller.js';
import { ApiError } from '../../core/errors.js';
import { parseBody } from '../../core/validate.js';
import { findUser, publicUser } from './repo.js';
import { writableBody, CreateUserBody, ReplaceUserBody, SYSTEM_FIELDS, UpdateUserBody } from './schemas.js';
import { changeModeOf } from '../../core/change-mode.js';
import { changeUser, createUser, listUsers, removeUser } from './service.js';

export const usersModule: Module = {
  name: 'users',

  workspaceRoutes(router: Router, ctx: AppContext) {
    // Administrators only, the whole group.
    const admin = adminOnly(router);
    admin.get('/users', async (req, res) => {
      res.json(await listUsers(req.ws, req.query as Record<string, unknown>));
    });

    admin.get('/users/:id', async (req, res) => {
      const user = await findUser(req.ws, req.params.id as string);
      if (!user) throw ApiError.notFound('User', req.params.id as string);
      res.json(publicUser(user));
    });

    admin.post('/users', async (req, res) => {
      const body = parseBody(CreateUserBody, writableBody(req.body, SYSTEM_FIELDS));
      res.status(201).json(publicUser(await createUser(ctx, req.ws, body, actorOf(req))));
    });

    const update = async (req: Request, res: Response) => {
      const caller = requireUser(req);
      const current = await findUser(req.ws, req.params.id as string);
      if (!current) throw ApiError.notFound('User', req.params.id as string);
      const replace = changeModeOf(req) === 'replace';
      const body = parseBody(replace ? ReplaceUserBody : UpdateUserBody, writableBody(req.body, SYSTEM_FIELDS, publicUser(current)));
      const user = await changeUser(ctx, req.ws, req.params.id as string, body, {
        actor: actorOf(req), keepSessionId: caller.sessionId, ...(replace ? { replace: { keep: SYSTEM_FIELDS } } : {}),
      });
      res.json(publicUser(user));
    };
    admin.put('/users/:id', update);
    admin.patch('/users/:id', update);

    admin.delete('/users/:id', async (req, res) => {
      await removeUser(ctx, req.ws, req.params.id as string, actorOf(req));
      res.status(204).end();
    });
  },
};
