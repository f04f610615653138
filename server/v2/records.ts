// v2 routes of records and of the collection list: the database module's service functions
// answered in the v2 envelope, with v2's REST meaning (PATCH merges, PUT replaces, 201 with
// Location, 204), `fields=`, caching and `If-Match`. Everything else under /database (fields,
// views, indexes, collection changes) is the v1 route answered by the v2 face (face.ts).
import type { Request, Response, Router } from 'express';
import type { AppContext } from '../modules/context.js';
import { storedDocJson } from '../core/http.js';
import {
  accessLabel, createRecord, deleteRecord, getCollection, getRecord, listRecords, readRecord, replaceRecord, updateRecord, type RecordOpts,
} from '../modules/database/index.js';
import type { RecordOp } from '../modules/database/index.js';
import type { Doc } from '../storage/query.js';
import { sendList, sendOne, workspaceUrl } from './envelope.js';
import { etagOf, ifMatchCheck } from './etag.js';
import { extendListQuery, paginationOf } from './list-extension.js';
import { methodNotAllowed } from './methods.js';
import { isReservedRecordId } from '../core/ids.js';

type P = Record<string, string>;
const param = (req: Request, name: string) => (req.params as P)[name];

function noteRule(req: Request, op: RecordOp): void {
  req.accessRule = accessLabel(getCollection(req.ws, param(req, 'collection')), op, req.auth);
}

const listPath = (req: Request) => `/database/${encodeURIComponent(param(req, 'collection'))}`;
const itemPath = (req: Request, id: string) => `${listPath(req)}/${encodeURIComponent(id)}`;

/** The caller, and the request's If-Match as a check of the record as it stands. */
function changeOpts(req: Request): RecordOpts {
  const check = ifMatchCheck(req);
  return { auth: req.auth, ...(check ? { precondition: (current: Doc) => check(etagOf(storedDocJson(current))) } : {}) };
}

export function recordRoutes(router: Router, ctx: AppContext): void {
  // Collections are changed at /database/{id} only.
  router.all('/database', methodNotAllowed(['GET', 'POST']));

  router.get('/database/:collection', async (req: Request, res: Response) => {
    noteRule(req, 'read');
    extendListQuery(req, `${req.ws.id}${listPath(req)}`);
    const page = await listRecords(ctx, req.ws, param(req, 'collection'), req.query as P, { auth: req.auth });
    sendList(req, res, page.data, page.meta, paginationOf(req), page.data.map(storedDocJson));
  });

  router.post('/database/:collection', async (req: Request, res: Response) => {
    noteRule(req, 'write');
    const record = await createRecord(ctx, req.ws, param(req, 'collection'), req.body, { auth: req.auth });
    const location = workspaceUrl(req, itemPath(req, record._id));
    res.setHeader('Location', location);
    sendOne(req, res, 201, record, { self: location, collection: workspaceUrl(req, listPath(req)) });
  });

  const item = '/database/:collection/:id';
  const isSchemaPart = (req: Request) => isReservedRecordId(param(req, 'id'));

  router.get(item, (req, res, next) => {
    if (isSchemaPart(req)) return next('route');
    noteRule(req, 'read');
    const opts = { auth: req.auth };
    const answer = (doc: Doc) => sendOne(req, res, 200, doc, { collection: workspaceUrl(req, listPath(req)) });
    const record = readRecord(req.ws, param(req, 'collection'), param(req, 'id'), opts);
    if (record instanceof Promise) record.then(answer, next);
    else answer(record);
  });

  const change = (op: 'merge' | 'replace') => async (req: Request, res: Response, next: (err?: unknown) => void) => {
    if (isSchemaPart(req)) return next('route');
    noteRule(req, 'update');
    const run = op === 'merge' ? updateRecord : replaceRecord;
    const record = await run(ctx, req.ws, param(req, 'collection'), param(req, 'id'), req.body, changeOpts(req));
    sendOne(req, res, 200, record, { collection: workspaceUrl(req, listPath(req)) });
  };
  router.patch(item, change('merge'));
  router.put(item, change('replace'));

  router.delete(item, async (req: Request, res: Response, next: (err?: unknown) => void) => {
    if (isSchemaPart(req)) return next('route');
    noteRule(req, 'remove');
    await deleteRecord(ctx, req.ws, param(req, 'collection'), param(req, 'id'), changeOpts(req));
    res.status(204).end();
  });
}
