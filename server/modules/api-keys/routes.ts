// The API keys of a workspace, for administrators (with a user's access token; a key cannot
// manage keys): `/v2/app/{app_id}/api-keys`. Mounted by the v2 face (server/v2/index.ts), whose
// envelope answers them. The key's value is in the creation answer only.
import type { Request, Response, Router } from 'express';
import { adminOnly, requireAdmin } from '../caller.js';
import { parseBody } from '../../core/validate.js';
import { NewApiKeyBody } from './schemas.js';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from './service.js';

export function apiKeyRoutes(router: Router): void {
  const admin = adminOnly(router);
  admin.get('/api-keys', async (req: Request, res: Response) => {
    const keys = await listApiKeys(req.ws);
    res.json({ data: keys, meta: { total: keys.length, limit: keys.length } });
  });
  admin.post('/api-keys', async (req: Request, res: Response) => {
    const body = parseBody(NewApiKeyBody, req.body);
    res.status(201).json(await createApiKey(req.ws, body, requireAdmin(req).userId));
  });
  admin.get('/api-keys/:id', async (req: Request, res: Response) => {
    res.json(await getApiKey(req.ws, req.params.id as string));
  });
  admin.delete('/api-keys/:id', async (req: Request, res: Response) => {
    await revokeApiKey(req.ws, req.params.id as string);
    res.status(204).end();
  });
}
