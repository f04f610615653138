// `itemRoutes`: the routes of one item by id. `wholeListRoutes`: GET (the whole list, no paging)
// and POST of a short resource created and deleted but never changed (API keys, OAuth clients).
// `settingRoutes`: GET, PUT and DELETE of one setting of a workspace on the console API (its
// clock, its faults).
// `crudRoutes`: the five routes of a resource that is listed, created, read, changed and deleted: GET and POST on `path`, GET, PUT and PATCH
// and DELETE on `path/:id`. PATCH merges; PUT merges too on v1 and replaces the whole resource on
// v2 (core/change-mode.ts): the handler is told which. HTTP only: handlers get the body as sent,
// and the services apply their rules to it (the read-only rule of core/read-only.ts among them).
import type { Request, RequestHandler } from 'express';
import type { Workspace } from '../storage/workspace.js';
import type { StoreQuery } from '../storage/query.js';
import { listMeta, parseListQuery } from '../core/list-query.js';
import { changeModeOf, type ChangeMode } from '../core/change-mode.js';

export interface CrudHandlers {
  list(ws: Workspace, q: StoreQuery): Promise<{ data: unknown[]; total: number }>;
  create(req: Request, body: unknown): Promise<unknown>;
  /** The resource as a GET shows it (404 if there is none). */
  get(ws: Workspace, id: string): Promise<object>;
  update(req: Request, id: string, body: unknown, mode: ChangeMode): Promise<unknown>;
  remove(req: Request, id: string): Promise<void>;
}

type Register = (path: string, ...handlers: RequestHandler[]) => unknown;
export interface Routes { get: Register; post: Register; put: Register; patch: Register; delete: Register }

export interface ItemHandlers {
  get(req: Request, id: string): unknown;
  /** `body` as sent (the handler parses it); `mode` says whether it merges or replaces. */
  update?(req: Request, id: string, body: unknown, mode: ChangeMode): Promise<unknown>;
  remove?(req: Request, id: string): Promise<void>;
}

/** GET, PUT and PATCH and DELETE (204) of one item at `path` (ending in `/:id`); the handlers
 *  answer the JSON body. PATCH merges; PUT merges on v1 and replaces on v2. */
export function itemRoutes(router: Routes, path: string, h: ItemHandlers): void {
  const id = (req: Request) => String(req.params.id);
  router.get(path, async (req, res) => {
    res.json(await h.get(req, id(req)));
  });
  const { update, remove } = h;
  if (update) {
    const change: RequestHandler = async (req, res) => { res.json(await update(req, id(req), req.body, changeModeOf(req))); };
    router.put(path, change);
    router.patch(path, change);
  }
  if (remove) {
    router.delete(path, async (req, res) => {
      await remove(req, id(req));
      res.status(204).end();
    });
  }
}

export interface SettingHandlers {
  /** The setting as GET shows it. */
  get(req: Request): unknown;
  /** `body` as sent (the handler parses it); answers the setting. */
  put(req: Request, body: unknown): Promise<unknown>;
  /** Clears it; answers the setting, or nothing (204). */
  clear(req: Request): Promise<unknown>;
}

/** GET, PUT and DELETE of a workspace's setting at `path`. */
export function settingRoutes(router: Routes, path: string, h: SettingHandlers): void {
  router.get(path, (req, res) => { res.json(h.get(req)); });
  router.put(path, async (req, res) => { res.json(await h.put(req, req.body)); });
  router.delete(path, async (req, res) => {
    const after = await h.clear(req);
    if (after === undefined) res.status(204).end();
    else res.json(after);
  });
}

export interface WholeListHandlers {
  list(ws: Workspace): Promise<unknown[]>;
  /** `body` as sent (the handler parses it); answered with 201. */
  create(req: Request, body: unknown): Promise<unknown>;
}

/** GET of `path` (the whole list: `meta` gives its size as total and limit) and POST (201). */
export function wholeListRoutes(router: Routes, path: string, h: WholeListHandlers): void {
  router.get(path, async (req, res) => {
    const data = await h.list(req.ws);
    res.json({ data, meta: { total: data.length, limit: data.length } });
  });
  router.post(path, async (req, res) => {
    res.status(201).json(await h.create(req, req.body));
  });
}

export function crudRoutes(router: Routes, path: string, crud: CrudHandlers): void {
  router.get(path, async (req, res) => {
    const q = parseListQuery(req.query);
    const { data, total } = await crud.list(req.ws, q);
    res.json({ data, meta: listMeta(total, q) });
  });
  router.post(path, async (req, res) => {
    res.status(201).json(await crud.create(req, req.body));
  });
  itemRoutes(router, `${path}/:id`, {
    get: (req, id) => crud.get(req.ws, id),
    update: (req, id, body, mode) => crud.update(req, id, body, mode),
    remove: (req, id) => crud.remove(req, id),
  });
}
