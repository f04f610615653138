// The OAuth clients of a workspace, for administrators (with a user's access token; neither an
// API key nor an OAuth token can manage them): `/v2/app/{app_id}/oauth/clients`, answered in
// the v2 envelope. A confidential client's secret is in the creation answer only.
import type { Request, Response, Router } from 'express';
import { adminOnly, requireAdmin } from '../caller.js';
import { parseBody } from '../../core/validate.js';
import { ApiError } from '../../core/errors.js';
import { createClient, deleteClient, getClient, listClients, NewOAuthClientBody } from './clients.js';

export function oauthClientRoutes(router: Router): void {
  const admin = adminOnly(router);
  admin.get('/oauth/clients', async (req: Request, res: Response) => {
    const clients = await listClients(req.ws);
    res.json({ data: clients, meta: { total: clients.length, limit: clients.length } });
  });
  admin.post('/oauth/clients', async (req: Request, res: Response) => {
    const body = parseBody(NewOAuthClientBody, req.body);
    res.status(201).json(await createClient(req.ws, body, requireAdmin(req).userId));
  });
  admin.get('/oauth/clients/:id', async (req: Request, res: Response) => {
    const client = await getClient(req.ws, req.params.id as string);
    if (!client) throw ApiError.notFound('OAuth client', req.params.id as string);
    res.json(client);
  });
  admin.delete('/oauth/clients/:id', async (req: Request, res: Response) => {
    await deleteClient(req.ws, req.params.id as string);
    res.status(204).end();
  });
}
