// The database API group (HTTP only): collections, their fields, views and indexes (admin
// only), and records under the collection's access rules.
import type { Request, Response, Router } from 'express';
import type { AppContext, Module } from '../context.js';
import { ApiError } from '../../core/errors.js';
import { isReservedRecordId } from '../../core/ids.js';
import { adminOnly } from '../caller.js';
import { parseBody } from '../../core/validate.js';
import { assertReadOnlyKept } from '../../core/read-only.js';
import { preserialised, sendStoredDoc, storedDocJson } from '../../core/http.js';
import { listMeta, parseListQuery } from '../../core/list-query.js';
import { DEFAULT_SORT, queryDocs, type Doc } from '../../storage/query.js';
import type { RecordOp } from './access.js';
import { createCollection, deleteCollection, listCollections, updateCollection } from './collections.js';
import * as schema from './schema-service.js';
import { itemRoutes } from '../crud-routes.js';
import {
  CollectionByIdBody, CollectionPatchBody, CollectionReplaceBody, FieldPatchBody, FieldReplaceBody, NewCollectionBody, NewFieldBody, NewIndexBody, NewViewBody,
  ViewPatchBody, ViewReplaceBody,
} from './schemas.js';
import { changeModeOf } from '../../core/change-mode.js';
import { accessLabel, createRecord, deleteRecord, getCollection, getRecord, listRecords, updateRecord } from './service.js';

type P = Record<string, string>;
/** Fixed segments after `/database/:collection/` that are schema routes, not record ids. */
const param = (req: Request, name: string) => (req.params as P)[name];

/** Records the rule deciding a record request (request log), before the service applies it. */
function noteRule(req: Request, op: RecordOp): void {
  const def = getCollection(req.ws, param(req, 'collection'));
  req.accessRule = accessLabel(def, op, req.auth);
}

export const databaseModule: Module = {
  name: 'database',
  workspaceRoutes(router: Router, ctx: AppContext) {
    const getRecordRoute = async (req: Request, res: Response) => {
      noteRule(req, 'read');
      sendStoredDoc(res, await getRecord(ctx, req.ws, param(req, 'collection'), param(req, 'id'), { auth: req.auth }));
    };
    // ---- records ----
    // The hot record routes first: Express tries routes in order, and a record request used to
    // be matched against the ~20 collection and schema routes before it. No earlier route takes
    // the same method and segment count, except GET of a schema part (`fields`, `views`,
    // `indexes`): that passes on, and the record GET route also stays in its original place
    // below, so every request still ends where it did.
    const listRecordsRoute = async (req: Request, res: Response) => {
      noteRule(req, 'read');
      const page = await listRecords(ctx, req.ws, param(req, 'collection'), req.query as P, { auth: req.auth });
      // The page's JSON built from each stored record's cached text (the same text res.json would write).
      res.json(preserialised(page, `{"data":[${page.data.map(storedDocJson).join(',')}],"meta":${JSON.stringify(page.meta)}}`));
    };
    router.get('/database/:collection', listRecordsRoute);
    router.get('/database/:collection/:id', (req, res, next) => {
      if (isReservedRecordId(param(req, 'id'))) return next('route');
      getRecordRoute(req, res).catch(next);
    });
    router.post('/database/:collection', async (req, res) => {
      noteRule(req, 'write');
      const record = await createRecord(ctx, req.ws, param(req, 'collection'), req.body, { auth: req.auth });
      sendStoredDoc(res.status(201), record);
    });

    const patchRecord = async (req: Request, res: Response) => {
      noteRule(req, 'update');
      sendStoredDoc(res, await updateRecord(ctx, req.ws, param(req, 'collection'), param(req, 'id'), req.body, { auth: req.auth }));
    };
    router.put('/database/:collection/:id', patchRecord);
    router.patch('/database/:collection/:id', patchRecord);

    router.delete('/database/:collection/:id', async (req, res) => {
      noteRule(req, 'remove');
      await deleteRecord(ctx, req.ws, param(req, 'collection'), param(req, 'id'), { auth: req.auth });
      res.status(204).end();
    });

    // ---- collections and their schema: administrators only, the whole part ----
    const admin = adminOnly(router);
    admin.get('/database', (req, res) => {
      const q = parseListQuery(req.query as P, { defaultSort: DEFAULT_SORT });
      const { data, total } = queryDocs(listCollections(req.ws) as unknown as Doc[], q);
      res.json({ data, meta: listMeta(total, q) });
    });

    admin.post('/database', async (req, res) => {
      const body = parseBody(NewCollectionBody, req.body);
      const fields = body.fields ? schema.newCollectionFields(req.ws, body._id, body.fields) : [];
      res.status(201).json(await createCollection(req.ws, { ...body, fields }));
    });

    // PATCH is accepted wherever PUT is.
    const patchCollectionById = async (req: Request, res: Response) => {
      const body = parseBody(CollectionByIdBody, req.body);
      res.json(await updateCollection(req.ws, body._id, body));
    };
    admin.put('/database', patchCollectionById);
    admin.patch('/database', patchCollectionById);

    // v1's PUT and PATCH change the settings sent; v2's PUT replaces them all.
    const patchCollection = async (req: Request, res: Response) => {
      const id = param(req, 'collection');
      const mode = changeModeOf(req);
      const body = parseBody(mode === 'replace' ? CollectionReplaceBody : CollectionPatchBody, req.body);
      getCollection(req.ws, id);
      assertReadOnlyKept(body, ['_id'], { _id: id });
      res.json(await updateCollection(req.ws, id, body, mode));
    };
    admin.put('/database/:collection', patchCollection);
    admin.patch('/database/:collection', patchCollection);

    admin.delete('/database/:collection', async (req, res) => {
      await deleteCollection(req.ws, param(req, 'collection'));
      res.status(204).end();
    });

    // ---- fields, views, indexes (before /:id so that these names are not read as record ids) ----
    // The collection must exist (404) before any of its parts is looked at.
    const collectionOf = (req: Request) => getCollection(req.ws, param(req, 'collection'));

    admin.get('/database/:collection/fields', (req, res) => { const def = collectionOf(req); res.json(listOf(def.fields)); });
    admin.post('/database/:collection/fields', async (req, res) => {
      collectionOf(req);
      res.status(201).json(await schema.createField(req.ws, param(req, 'collection'), parseBody(NewFieldBody, req.body)));
    });
    itemRoutes(admin, '/database/:collection/fields/:id', {
      get: (req, id) => item(collectionOf(req).fields, id, 'Field'),
      update: (req, id, body, mode) => schema.updateField(req.ws, collectionOf(req)._id, id, parseBody(mode === 'replace' ? FieldReplaceBody : FieldPatchBody, body), mode),
      remove: (req, id) => schema.deleteField(req.ws, collectionOf(req)._id, id),
    });

    admin.get('/database/:collection/views', (req, res) => { res.json(listOf(collectionOf(req).views)); });
    admin.post('/database/:collection/views', async (req, res) => {
      collectionOf(req);
      res.status(201).json(await schema.createView(req.ws, param(req, 'collection'), parseBody(NewViewBody, req.body)));
    });
    itemRoutes(admin, '/database/:collection/views/:id', {
      get: (req, id) => item(collectionOf(req).views, id, 'View'),
      update: (req, id, body, mode) => schema.updateView(req.ws, collectionOf(req)._id, id, parseBody(mode === 'replace' ? ViewReplaceBody : ViewPatchBody, body), mode),
      remove: (req, id) => schema.deleteView(req.ws, collectionOf(req)._id, id),
    });

    admin.get('/database/:collection/indexes', (req, res) => { res.json(listOf(collectionOf(req).indexes)); });
    admin.post('/database/:collection/indexes', async (req, res) => {
      collectionOf(req);
      res.status(201).json(await schema.createIndex(req.ws, param(req, 'collection'), parseBody(NewIndexBody, req.body)));
    });
    itemRoutes(admin, '/database/:collection/indexes/:id', {
      get: (req, id) => item(collectionOf(req).indexes, id, 'Index'),
      remove: (req, id) => schema.deleteIndex(req.ws, collectionOf(req)._id, id),
    });

    // A record GET passed on above (an id spelled like a schema part) that no schema route took.
    router.get('/database/:collection/:id', getRecordRoute);
  },
};

/** Schema parts are short: the whole list, in the list response shape. */
function listOf<T>(items: T[]) {
  return { data: items, meta: { total: items.length, limit: items.length, offset: 0 } };
}

function item<T extends { _id: string }>(list: T[], id: string, what: string): T {
  const found = list.find((x) => x._id === id);
  if (!found) throw ApiError.notFound(what, id);
  return found;
}
