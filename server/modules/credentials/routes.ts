// The credentials API group: write-only secrets, admin only.
import type { Request, Response, Router } from 'express';
import type { Module } from '../context.js';
import { adminOnly } from '../auth/authenticate.js';
import { parseBody } from '../../core/validate.js';
import { listMeta, parseListQuery } from '../../core/list-query.js';
import { NewCredentialBody, CredentialChangesBody } from './schemas.js';
import { createCredential, deleteCredential, getCredential, listCredentials, updateCredential } from './service.js';

export const credentialsModule: Module = {
  name: 'credentials',
  workspaceRoutes(router: Router) {
    // Administrators only, the whole group.
    const admin = adminOnly(router);
    admin.get('/credentials', async (req, res) => {
      const q = parseListQuery(req.query);
      const { data, total } = await listCredentials(req.ws, q);
      res.json({ data, meta: listMeta(total, q) });
    });

    admin.post('/credentials', async (req, res) => {
      res.status(201).json(await createCredential(req.ws, parseBody(NewCredentialBody, req.body)));
    });

    admin.get('/credentials/:id', async (req, res) => {
      res.json(await getCredential(req.ws, req.params.id as string));
    });

    const update = async (req: Request, res: Response) => {
      res.json(await updateCredential(req.ws, req.params.id as string, parseBody(CredentialChangesBody, req.body)));
    };
    admin.put('/credentials/:id', update);
    admin.patch('/credentials/:id', update);

    admin.delete('/credentials/:id', async (req, res) => {
      await deleteCredential(req.ws, req.params.id as string);
      res.status(204).end();
    });
  },
};
