// The API keys of a workspace, for administrators (with a user's access token; a key cannot
// manage keys): `/v2/app/{app_id}/api-keys`. Mounted by the v2 face (server/v2/index.ts), whose
// envelope answers them. The key's value is in the creation answer only.
import type { Router } from 'express';
import { adminOnly, requireAdmin } from '../caller.js';
import { itemRoutes, wholeListRoutes } from '../crud-routes.js';
import { parseBody } from '../../core/validate.js';
import { NewApiKeyBody } from './schemas.js';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from './service.js';

export function apiKeyRoutes(router: Router): void {
  const admin = adminOnly(router);
  wholeListRoutes(admin, '/api-keys', {
    list: listApiKeys,
    create: (req, body) => createApiKey(req.ws, parseBody(NewApiKeyBody, body), requireAdmin(req).userId),
  });
  itemRoutes(admin, '/api-keys/:id', {
    get: (req, id) => getApiKey(req.ws, id),
    remove: (req, id) => revokeApiKey(req.ws, id),
  });
}
