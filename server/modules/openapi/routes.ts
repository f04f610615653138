// The openapi API group: `GET /openapi.json`, the workspace's OpenAPI 3.1 document (no token
// needed), generated per request so that it always shows the current collections and fields.
import { createHash } from 'node:crypto';
import type { Router } from 'express';
import type { AppContext, Module } from '../context.js';
import { listCollections } from '../database/index.js';
import { apiBaseOf } from '../storage/index.js';
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
      // A strong ETag of the document: `homebase types --watch` asks with If-None-Match whether
      // the schema changed, and gets a 304 while it has not.
      const text = JSON.stringify(doc);
      const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
      res.set({ 'Cache-Control': 'no-store', ETag: etag });
      if (req.get('if-none-match')?.split(',').some((t) => t.trim() === etag)) { res.status(304).end(); return; }
      res.type('application/json').send(text);
    });
  },
};
