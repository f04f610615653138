// The credentials API group (CONTRACT §9): write-only secrets, admin only.
import type { Request, Response, Router } from 'express';
import type { Module } from '../context.js';
import { requireAdmin } from '../auth/authenticate.js';
import { parseBody } from '../../core/validate.js';
import { listMeta, parseListQuery } from '../../core/list-query.js';
import { NewCredentialBody, CredentialChangesBody } from './schemas.js';
import { createCredential, deleteCredential, getCredential, listCredentials, updateCredential } from './service.js';

export const credentialsModule: Module = {
  name: 'credentials',
  workspaceRoutes(router: Router) {
    router.get('/credentials', async (req, res) => {
      requireAdmin(req);
      const q = parseListQuery(req.query);
      const { data, total } = await listCredentials(req.ws, q);
      res.json({ data, meta: listMeta(total, q) });
    });

    router.post('/credentials', async (req, res) => {
      requireAdmin(req);
      res.status(201).json(await createCredential(req.ws, parseBody(NewCredentialBody, req.body)));
    });

    router.get('/credentials/:id', async (req, res) => {
      requireAdmin(req);
      res.json(await getCredential(req.ws, req.params.id as string));
    });

    const update = async (req: Request, res: Response) => {
      requireAdmin(req);
      res.json(await updateCredential(req.ws, req.params.id as string, parseBody(CredentialChangesBody, req.body)));
    };
    router.put('/credentials/:id', update);
    router.patch('/credentials/:id', update);

    router.delete('/credentials/:id', async (req, res) => {
      requireAdmin(req);
      await deleteCredential(req.ws, req.params.id as string);
      res.status(204).end();
    });
  },
};
