// The OAuth clients of a workspace, for administrators (with a user's access token; neither an
// API key nor an OAuth token can manage them): `/v2/app/{app_id}/oauth/clients`, answered in
// the v2 envelope. A confidential client's secret is in the creation answer only.
import type { Router } from 'express';
import type { AppContext } from '../context.js';
import { adminOnly, requireAdmin } from '../caller.js';
import { itemRoutes, wholeListRoutes } from '../crud-routes.js';
import { parseBody } from '../../core/validate.js';
import { ApiError } from '../../core/errors.js';
import { createClient, deleteClient, getClient, listClients, NewOAuthClientBody } from './clients.js';

export function oauthClientRoutes(router: Router, ctx: AppContext): void {
  const admin = adminOnly(router);
  wholeListRoutes(admin, '/oauth/clients', {
    list: listClients,
    create: (req, body) => createClient(req.ws, parseBody(NewOAuthClientBody, body), requireAdmin(req).userId),
  });
  itemRoutes(admin, '/oauth/clients/:id', {
    get: async (req, id) => {
      const client = await getClient(req.ws, id);
      if (!client) throw ApiError.notFound('OAuth client', id);
      return client;
    },
    remove: (req, id) => deleteClient(ctx, req.ws, id),
  });
}
