// The hottest request, GET of one record by id, answered without Express's routers: the same
// workspace pipeline and the same handler as the route in routes.ts, minus the path matching and
// parameter handling of two routers, which were a fifth of its CPU time (docs/performance.md).
// Only plain ids (no percent-encoding) that are not schema parts (`fields`, `views`, `indexes`)
// take it; everything else goes the ordinary way.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../context.js';
import { ID_SOURCE } from '../../core/ids.js';
import { accessLabel, getCollection, getRecord } from './service.js';

const ID = `(${ID_SOURCE})`;
/** `/api/app/{app_id}/database/{collection}/{id}`. */
const RECORD_GET = new RegExp(`^/api/app/${ID}/database/${ID}/${ID}/?(?:\\?|$)`);
const SCHEMA_PARTS = /^(?:fields|views|indexes)$/i;

/** For a GET, returns the continuation that answers it when it is a plain record GET (to run
 *  after the app's first layer), or undefined to let the request take the ordinary way.
 *  `pipeline` is the workspace API's (CORS, request log, workspace, body, token). */
export function recordGetShortcut(ctx: AppContext, pipeline: RequestHandler) {
  return (req: Request, res: Response, next: NextFunction) => {
    const m = RECORD_GET.exec(req.url);
    if (!m || SCHEMA_PARTS.test(m[3])) return undefined;
    const [, appId, collection, id] = m;
    return (err?: unknown) => {
      if (err) return next(err);
      req.params = { appId };
      pipeline(req, res, (failure?: unknown) => {
        if (failure) return next(failure);
        req.params = { collection, id };
        req.accessRule = accessLabel(getCollection(req.ws, collection), 'read', req.auth);
        getRecord(ctx, req.ws, collection, id, { auth: req.auth }).then((record) => { res.json(record); }, next);
      });
    };
  };
}
