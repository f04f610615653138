// Resumable uploads (tus 1.0: core, creation, creation-with-upload, creation-defer-length,
// termination, expiration) with @tus/server and @tus/file-store: one tus server per workspace,
// created on first use, over that workspace's own folder. Every request but OPTIONS needs a
// signed-in user, and an unfinished upload can only be continued by the user who began it (or
// an admin). A finished upload becomes a file object whose `_id` is the upload id.
import { AsyncLocalStorage } from 'node:async_hooks';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Request, Response } from 'express';
// @tus/server and @tus/file-store are loaded on the first tus request (a start does not need them).
import type { Server as TusServer, Upload } from '@tus/server';
import type { FileStore } from '@tus/file-store';
import type { AppContext } from '../context.js';
import { ApiError, publicError } from '../../core/errors.js';
import { ERROR_STATUS, type ErrorCode } from '../../shared/error-codes.js';
import { actorOf, requireUser } from '../caller.js';
import { isValidId, newId } from '../../core/ids.js';
import { logger } from '../../core/logger.js';
import { ownApiBase } from '../../core/public-url.js';
import type { Workspace } from '../../storage/workspace.js';
import { cleanName, cleanType } from './names.js';
import { exists, type StorageService } from './service.js';

/** Statuses only tus gives a meaning to (410 expired, 412 no or another Tus-Resumable, 460
 *  checksum mismatch, 501 extension not offered): tus clients know their plain-text answers, so
 *  they keep them even where the error catalog has a code for the status (412 is also v2's
 *  PRECONDITION_FAILED). */
const TUS_ONLY_STATUSES = new Set([410, 412, 460, 501]);
const CODE_OF_STATUS = new Map(Object.entries(ERROR_STATUS)
  .filter(([code, status]) => !TUS_ONLY_STATUSES.has(status as number) && code !== 'INJECTED_FAULT')
  .map(([code, status]) => [status as number, code as ErrorCode]));

/** The Express request behind the tus call being handled (tus hooks only see a web Request). */
const currentRequest = new AsyncLocalStorage<Request>();
/** The upload id handle() decided for a request (none for the creation URL). Not server state:
 *  a note on one request, gone with it. */
const uploadIdOfRequest = new WeakMap<Request, string | undefined>();

const TUS_PATCH_TYPE = 'application/offset+octet-stream';

interface TusEntry { server: TusServer; store: FileStore; dir: string }

/** `{base_url}` as the client named it: protocol and Host of the request. Only for documents
 *  that are about the client's own view; URLs sent out use ownApiBase (core/public-url.ts). */
export function apiBaseOf(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}/api`;
}

export class TusUploads {
  private entries = new Map<string, Promise<TusEntry>>();

  constructor(private readonly ctx: AppContext, private readonly files: StorageService) {}

  /** Handles one tus request of `/storage/upload/tus[/{id}]`. */
  async handle(req: Request, res: Response): Promise<void> {
    const ws = req.ws;
    const auth = req.method === 'OPTIONS' ? undefined : requireUser(req);
    // The upload this request is about is decided here, once, from the path exactly as sent,
    // and handed to the tus server (getFileIdFromRequest), so that the owner check below and the
    // tus server always act on the same id.
    const target = tusTargetOf(req.path);
    if (!target || !methodFits(req.method, target.id)) throw new ApiError('NOT_FOUND', 'No resumable upload at this URL: use /storage/upload/tus to create one and the Location it answers, exactly as given, for the rest');
    if (auth && target.id && !auth.isAdmin) {
      const { store } = await this.entry(ws);
      const upload = await store.configstore.get(target.id);
      if (upload && upload.metadata?.owner !== auth.userId) throw ApiError.forbidden('This upload was started by another user');
    }
    // tus 1.0: a PATCH must carry `Content-Type: application/offset+octet-stream`, else 415
    // (only once the request is a tus request at all: without Tus-Resumable tus answers 412).
    if (req.method === 'PATCH' && req.get('tus-resumable') !== undefined && req.get('content-type') !== TUS_PATCH_TYPE) {
      throw ApiError.unsupportedMediaType(`A PATCH of a resumable upload must have Content-Type: ${TUS_PATCH_TYPE}`);
    }
    const { server } = await this.entry(ws);
    uploadIdOfRequest.set(req, target.id);
    // tus builds its Location header from the full path, not Express's mount-relative one; the
    // query string is left out (nothing in it is tus's).
    const mounted = req.url;
    req.url = req.originalUrl.split('?')[0];
    try {
      await currentRequest.run(req, () => server.handle(req, res));
    } finally {
      req.url = mounted;
    }
  }

  /** Removes expired unfinished uploads of every workspace that has a tus folder. */
  async sweepExpired(): Promise<number> {
    let removed = 0;
    for (const info of this.ctx.registry.list()) {
      const ws = this.ctx.registry.get(info._id);
      if (!ws) continue;
      const known = this.entries.has(ws.id);
      if (!known && !(ws.dir && await exists(join(ws.dir, 'uploads', 'tus')))) continue;
      const { dir } = await this.entry(ws);
      removed += await sweepDir(dir, this.ctx.config.uploadExpiry);
    }
    return removed;
  }

  /** Forgets a workspace (deleted); its folder goes with the workspace. */
  drop(ws: Workspace): void { this.entries.delete(ws.id); }

  /** Removes every unfinished upload of a workspace whose content was replaced (reset, snapshot
   *  restore, import): their bytes and `.json` go, and the workspace's tus server is dropped (a
   *  new one is made on next use), so their URLs answer 404 and cannot complete into the new
   *  content. Runs while the workspace is busy, so no tus request of it is being admitted. */
  async clear(ws: Workspace): Promise<number> {
    const entry = this.entries.get(ws.id);
    this.entries.delete(ws.id);
    const dir = (await entry?.catch(() => undefined))?.dir ?? (ws.dir ? join(ws.dir, 'uploads', 'tus') : undefined);
    if (!dir) return 0; // an in-memory workspace that never used tus
    const names = await readdir(dir).catch(() => [] as string[]);
    await Promise.all(names.map((name) => rm(join(dir, name), { force: true, recursive: true })));
    return names.length;
  }

  private entry(ws: Workspace): Promise<TusEntry> {
    let entry = this.entries.get(ws.id);
    if (!entry) {
      entry = this.create(ws);
      entry.catch(() => this.entries.delete(ws.id));
      this.entries.set(ws.id, entry);
    }
    return entry;
  }

  private async create(ws: Workspace): Promise<TusEntry> {
    const area = await this.files.area(ws);
    const [{ Server: TusServer, EVENTS }, { FileStore }] = await Promise.all([import('@tus/server'), import('@tus/file-store')]);
    const store = new FileStore({ directory: area.tus, expirationPeriodInMilliseconds: this.ctx.config.uploadExpiry });
    const server = new TusServer({
      path: `/api/app/${ws.id}/storage/upload/tus`,
      datastore: store,
      // Upload ids are file ids, so they follow the id pattern.
      namingFunction: () => newId(),
      // Never the end of the URL as tus would read it (decoded, query string included): the id
      // that handle() checked.
      getFileIdFromRequest: () => {
        const req = currentRequest.getStore();
        return req ? uploadIdOfRequest.get(req) : undefined;
      },
      // The owner is recorded by the server, whatever metadata the client sent.
      onUploadCreate: async (_req, upload) => {
        const req = currentRequest.getStore();
        return { metadata: { ...(upload.metadata ?? {}), owner: req?.auth?.userId ?? null } };
      },
      onUploadFinish: async (_req, upload) => {
        await this.finish(ws, area.tus, upload);
        return {};
      },
      // Never let an internal error message (which may hold a path) reach the client: the body
      // carries only a request id, which the log line has too.
      onResponseError: (_req, err) => {
        const status = (err as { status_code?: number }).status_code ?? 500;
        if (status < 500) return undefined;
        const masked = publicError(err, { workspace: ws.id }, 'tus upload failed');
        // A full or unwritable disk keeps its 507 / 503 and message; anything else is a masked 500.
        return { status_code: masked.status, body: masked.code === 'INTERNAL' ? String(masked.details?.requestId) : masked.message };
      },
    });
    // Error answers in the contract's shape, like every other route, wherever the status has a
    // code of the catalog; the tus-only statuses (410 expired, 412 version, 460 checksum) keep
    // tus's own plain text, which tus clients know.
    const write = server.write.bind(server);
    server.write = (context, headers, status, body = '') => {
      const code = CODE_OF_STATUS.get(status);
      if (status < 400 || !code) return write(context, headers, status, body);
      const error = code === 'INTERNAL'
        ? new ApiError(code, 'Internal server error', { requestId: body })
        : new ApiError(code, body.trim() || 'Bad request');
      headers.set('Content-Type', 'application/json; charset=utf-8');
      return write(context, headers, status, JSON.stringify(error.toBody()));
    };
    // @tus/server sets its own Access-Control-Expose-Headers on every response, replacing the
    // app's (set by the CORS middleware), which lists Upload-Expires, Content-Disposition, ETag,
    // Retry-After... A browser client must see both: expose the union. `handler` (private in
    // @tus/server's types) builds every response, errors included, that handle() then sends.
    const inner = server as unknown as { handler?(request: globalThis.Request): Promise<globalThis.Response> };
    const handler = inner.handler?.bind(server);
    if (handler) inner.handler = async (request) => {
      const response = await handler(request);
      const app = currentRequest.getStore()?.res?.getHeader('Access-Control-Expose-Headers');
      if (app !== undefined) {
        try {
          response.headers.set('Access-Control-Expose-Headers', unionOfLists(String(app), response.headers.get('Access-Control-Expose-Headers') ?? ''));
        } catch { /* immutable headers (never built by tus): keep tus's list */ }
      }
      return response;
    };
    // Once the response to the last chunk is built, the finished upload leaves the tus folder
    // (its bytes were linked into the files folder by finish()).
    server.on(EVENTS.POST_FINISH, (_req, _res, upload: Upload) => {
      void Promise.all([rm(join(area.tus, upload.id), { force: true }), rm(join(area.tus, `${upload.id}.json`), { force: true })])
        .catch((err) => logger.warn({ err }, 'could not remove a finished tus upload'));
    });
    return { server, store, dir: area.tus };
  }

  /** Turns the completed upload into a file object with `_id` = the upload id. */
  private async finish(ws: Workspace, dir: string, upload: Upload): Promise<void> {
    const req = currentRequest.getStore();
    const meta = upload.metadata ?? {};
    const size = upload.offset;
    await this.files.create(ws, {
      id: upload.id,
      name: cleanName(meta.filename ?? meta.name),
      type: cleanType(meta.filetype ?? meta.type),
      size,
      owner: meta.owner ?? req?.auth?.userId ?? null,
      source: join(dir, upload.id),
      mode: 'link',
    }, req ? actorOf(req) : undefined, ownApiBase(req, this.ctx.config));
  }
}

/** Header-name lists (`A, B`) joined without duplicates (case-insensitive), first list first. */
function unionOfLists(...lists: string[]): string {
  const seen = new Map<string, string>();
  for (const list of lists) {
    for (const raw of list.split(',')) {
      const name = raw.trim();
      if (name && !seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
    }
  }
  return [...seen.values()].join(', ');
}

/** What a tus URL names, from the path relative to the workspace exactly as sent (not
 *  decoded): `/storage/upload/tus` (or with a trailing slash) is the creation URL, and
 *  `/storage/upload/tus/{id}` an upload, with an id of the id pattern spelled plainly: no
 *  percent-encoding, no trailing slash or further segments. Anything else names nothing. */
export function tusTargetOf(path: string): { id?: string } | undefined {
  if (path === '/storage/upload/tus' || path === '/storage/upload/tus/') return {};
  const m = /^\/storage\/upload\/tus\/([^/]+)$/.exec(path);
  return m && isValidId(m[1]) ? { id: m[1] } : undefined;
}

/** POST creates (no id); HEAD, PATCH, DELETE and GET act on an upload (an id); OPTIONS on either. */
function methodFits(method: string, id: string | undefined): boolean {
  if (method === 'OPTIONS') return true;
  return method === 'POST' ? id === undefined : id !== undefined;
}

/** Deletes unfinished uploads created more than `expiry` ms ago, and stray halves of a pair
 *  (bytes without their `.json`, or the reverse) older than that. */
export async function sweepDir(dir: string, expiry: number): Promise<number> {
  const now = Date.now();
  const names = await readdir(dir).catch(() => [] as string[]);
  const set = new Set(names);
  let removed = 0;
  for (const name of names) {
    const id = name.endsWith('.json') ? name.slice(0, -5) : name;
    if (!isValidId(id) || (name === id && set.has(`${id}.json`))) continue; // pairs are judged by their .json
    let created: number | undefined;
    if (name.endsWith('.json') && set.has(id)) {
      const info = await readFile(join(dir, name), 'utf8').then((t) => JSON.parse(t) as { creation_date?: string }, () => undefined);
      created = info?.creation_date ? Date.parse(info.creation_date) : undefined;
    }
    if (created === undefined || Number.isNaN(created)) created = (await stat(join(dir, name)).catch(() => undefined))?.mtimeMs;
    if (created === undefined || now - created <= expiry) continue;
    await rm(join(dir, id), { force: true });
    await rm(join(dir, `${id}.json`), { force: true });
    removed++;
  }
  return removed;
}
