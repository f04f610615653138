// The five routes of a resource that is listed, created, read, changed and deleted: GET and
// POST on `path`, GET, PUT and PATCH (both a partial update) and DELETE on `path/:id`. The
// read-only rule (core/read-only.ts) is applied here once, for every such resource: a create
// naming a server-managed field is refused; a change may repeat the current value (what the GET
// of `path/:id` shows), never change it. Handlers get the body without those fields, unparsed:
// each parses it with its module's schema.
import type { Request, RequestHandler } from 'express';
import type { Workspace } from '../storage/workspace.js';
import type { StoreQuery } from '../storage/query.js';
import { listMeta, parseListQuery } from '../core/list-query.js';
import { SERVER_FIELDS, withoutReadOnly } from '../core/read-only.js';

export interface CrudHandlers {
  list(ws: Workspace, q: StoreQuery): Promise<{ data: unknown[]; total: number }>;
  create(req: Request, body: unknown): Promise<unknown>;
  /** The resource as a GET shows it (404 if there is none). */
  get(ws: Workspace, id: string): Promise<object>;
  update(req: Request, id: string, body: unknown): Promise<unknown>;
  remove(req: Request, id: string): Promise<void>;
  /** The fields no client writes; default `_id`, `createdAt`, `updatedAt`. */
  readOnly?: readonly string[];
}

type Register = (path: string, ...handlers: RequestHandler[]) => unknown;
export interface Routes { get: Register; post: Register; put: Register; patch: Register; delete: Register }

export function crudRoutes(router: Routes, path: string, crud: CrudHandlers): void {
  const one = `${path}/:id`;
  const readOnly = crud.readOnly ?? SERVER_FIELDS;
  const id = (req: Request) => req.params.id as string;
  router.get(path, async (req, res) => {
    const q = parseListQuery(req.query);
    const { data, total } = await crud.list(req.ws, q);
    res.json({ data, meta: listMeta(total, q) });
  });
  router.post(path, async (req, res) => {
    res.status(201).json(await crud.create(req, withoutReadOnly(req.body, readOnly)));
  });
  router.get(one, async (req, res) => {
    res.json(await crud.get(req.ws, id(req)));
  });
  const update: RequestHandler = async (req, res) => {
    const current = await crud.get(req.ws, id(req));
    res.json(await crud.update(req, id(req), withoutReadOnly(req.body, readOnly, current)));
  };
  router.put(one, update);
  router.patch(one, update);
  router.delete(one, async (req, res) => {
    await crud.remove(req, id(req));
    res.status(204).end();
  });
}
