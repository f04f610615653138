// The openapi API group: `GET /openapi.json`, the workspace's OpenAPI 3.1 document (no token
// needed), generated per request so that it always shows the current collections and fields.
import type { Router } from 'express';
import type { AppContext, Module } from '../context.js';
import { listCollections } from '../database/collections.js';
import { apiBaseOf } from '../storage/tus.js';
import { buildDocument } from './document.js';

export const openapiModule: Module = {
  name: 'openapi',
  workspaceRoutes(router: Router, ctx: AppContext) {
    router.get('/openapi.json', (req, res) => {
      const doc = buildDocument({
        apiBase: apiBaseOf(req),
        workspace: req.ws.id,
        version: ctx.config.version,
        collections: listCollections(req.ws),
      });
      res.set('Cache-Control', 'no-store').json(doc);
    });
  },
};
