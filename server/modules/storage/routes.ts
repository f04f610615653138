// The storage API group: simple and resumable (tus) uploads, file listing and
// information, downloads, deletion. HTTP only; the rules are in service.ts, upload.ts, tus.ts.
import { rm } from 'node:fs/promises';
import type { Request } from 'express';
import type { Module } from '../context.js';
import { ApiError } from '../../core/errors.js';
import { actorOf, requireUser } from '../caller.js';
import { authenticateToken } from '../auth/index.js';
import { listMeta, parseListQuery } from '../../core/list-query.js';
import type { FieldType } from '../../shared/models.js';
import { fileObject, storageOf, type FileDoc, type StorageService } from './service.js';
import { receiveFile } from './upload.js';
import { sendFile } from './download.js';
import { TusUploads } from './tus.js';
import { ownApiBase } from '../../core/public-url.js';
import { cleanName, cleanType } from './names.js';
import { logger } from '../../core/logger.js';

const FILE_FIELD_TYPES: Record<string, FieldType> = {
  _id: 'string', name: 'string', type: 'string', size: 'integer', _owner: 'string', createdAt: 'date', updatedAt: 'date',
};

function tusFor(svc: StorageService): TusUploads {
  return svc.ctx.state.storage.tus ??= new TusUploads(svc.ctx, svc);
}

async function findFile(svc: StorageService, req: Request): Promise<FileDoc> {
  const id = String(req.params.id);
  const doc = await svc.get(req.ws, id);
  if (!doc) throw ApiError.notFound('File', id);
  return doc;
}

export const storageModule: Module = {
  name: 'storage',

  workspaceRoutes(router, ctx) {
    const svc = storageOf(ctx);
    const tus = tusFor(svc);

    router.post('/storage/upload', async (req, res) => {
      const auth = requireUser(req);
      const area = await svc.area(req.ws);
      const got = await receiveFile(req, area.incoming, ctx.config.uploadLimit);
      try {
        const file = await svc.create(req.ws, {
          name: cleanName(got.filename),
          type: cleanType(got.mimeType),
          size: got.size,
          owner: auth.userId,
          source: got.tempPath,
          mode: 'rename',
        }, actorOf(req), ownApiBase(req, ctx.config));
        res.status(201).json(file);
      } finally {
        await rm(got.tempPath, { force: true });
      }
    });

    // tus: the creation URL and each upload's URL; Express 5 needs a named wildcard.
    router.all(['/storage/upload/tus', '/storage/upload/tus/*splat'], (req, res) => tus.handle(req, res));

    router.get('/storage', async (req, res) => {
      requireUser(req);
      const q = parseListQuery(req.query as Record<string, unknown>, { typeOf: (p) => FILE_FIELD_TYPES[p] });
      const { data, total } = await (await svc.store(req.ws)).find(q);
      const withUrl = !q.fields || q.fields.includes('url');
      const base = ownApiBase(req, ctx.config);
      res.json({ data: data.map((d) => (withUrl ? fileObject(d, req.ws.id, base) : d)), meta: listMeta(total, q) });
    });

    router.get('/storage/:id', async (req, res) => {
      requireUser(req);
      res.json(fileObject(await findFile(svc, req), req.ws.id, ownApiBase(req, ctx.config)));
    });

    router.get('/storage/:id/download', async (req, res) => {
      // `?token=` lets an <img src> or a plain link carry the access token.
      const token = req.query.token;
      if (!req.auth && typeof token === 'string' && token !== '') req.auth = await authenticateToken(req.ws, token);
      requireUser(req);
      const doc = await findFile(svc, req);
      await sendFile(req, res, doc, await svc.bytesPath(req.ws, doc._id));
    });

    router.delete('/storage/:id', async (req, res) => {
      const auth = requireUser(req);
      const doc = await findFile(svc, req);
      await svc.remove(req.ws, doc, auth, actorOf(req), ownApiBase(req, ctx.config));
      res.status(204).end();
    });
  },

  async start(ctx) {
    const svc = storageOf(ctx);
    const tus = tusFor(svc);
    // Simple uploads cut off by a `kill -9` are never resumed: their `.part` files go now, not
    // only when the workspace's storage is next used (start runs before the server listens).
    await Promise.all(ctx.registry.list().map(async (info) => {
      const ws = ctx.registry.get(info._id);
      if (ws) await svc.sweepIncoming(ws).catch((err) => logger.warn({ err, workspace: ws.id }, 'could not sweep unfinished simple uploads'));
    }));
    await ctx.registry.listen({
      // On delete and at shutdown (after in-flight requests): an in-memory workspace's temp folder goes.
      closing: async (ws) => { tus.drop(ws); await svc.dropWorkspace(ws); },
      // A reset, restore or import swapped the file objects: unfinished tus uploads (which would
      // otherwise complete into the new content) and bytes nobody points to go.
      replaced: async (ws) => {
        await tus.clear(ws).catch((err) => logger.warn({ err, workspace: ws.id }, 'could not clear unfinished tus uploads'));
        await svc.sweepOrphans(ws).catch(() => undefined);
      },
    });
    const every = Math.min(Math.max(Math.floor(ctx.config.uploadExpiry / 4), 50), 15 * 60 * 1000);
    let sweeping = false;
    const timer = setInterval(() => {
      if (sweeping) return;
      sweeping = true;
      tus.sweepExpired().catch(() => undefined).finally(() => { sweeping = false; });
    }, every);
    timer.unref();
    ctx.closers.push(() => clearInterval(timer));
  },
};
