// The hottest request, GET of one record by id, answered before Express's app router runs at
// all: what app.handle and the router set up (circular references, prototypes, locals,
// originalUrl), the app's first layer (nosniff, Host guard), then the same workspace pipeline
// and the same service call as the route in routes.ts, and errors to the same error handler.
// The path matching and parameter handling of the routers were a fifth of its CPU time, the app
// router's own walk a few per cent more (docs/performance.md). Only plain ids (no
// percent-encoding) that are not schema parts (`fields`, `views`, `indexes`) take it; everything
// else goes the ordinary way.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
import type { AppContext } from '../context.js';
import { ID_SOURCE, isReservedRecordId } from '../../core/ids.js';
import { adoptAsExpress } from '../../core/request-shape.js';
import { sendStoredDoc } from '../../core/http.js';
import { accessLabel, getCollection, readRecord } from './service.js';

const ID = `(${ID_SOURCE})`;
/** `/api/app/{app_id}/database/{collection}/{id}`. */
const RECORD_GET = new RegExp(`^/api/app/${ID}/database/${ID}/${ID}/?(?:\\?|$)`);

type Handle = (req: IncomingMessage, res: ServerResponse, callback?: (err?: unknown) => void) => void;

export interface FastPathParts {
  /** The app's first layer (nosniff, Host guard), run first as Express would. */
  firstLayer: RequestHandler;
  /** The workspace API's pipeline (CORS, request log, workspace, body, token). */
  pipeline: RequestHandler;
  /** The app's error handler. */
  onError: ErrorRequestHandler;
}

/** Takes plain record GETs off `app.handle` (see the top of this file). */
export function installRecordGetFastPath(app: Express, ctx: AppContext, parts: FastPathParts): void {
  const target = app as unknown as { handle: Handle };
  const routed = target.handle;
  target.handle = function handle(this: Express, req, res, callback) {
    const m = req.method === 'GET' && req.url ? RECORD_GET.exec(req.url) : null;
    if (!m || isReservedRecordId(m[3])) return routed.call(this, req, res, callback);
    const { request, response } = adoptAsExpress(app, req, res);
    const [, appId, collection, id] = m;
    const fail = (err: unknown) => parts.onError(err, request, response, () => undefined);
    const answer = () => {
      request.params = { collection, id };
      request.accessRule = accessLabel(getCollection(request.ws, collection), 'read', request.auth);
      const record = readRecord(request.ws, collection, id, { auth: request.auth });
      if (record instanceof Promise) record.then((r) => { sendStoredDoc(response, r); }, fail);
      else sendStoredDoc(response, record);
    };
    const run = (err?: unknown) => {
      if (err) return fail(err);
      request.params = { appId };
      parts.pipeline(request, response, (failure?: unknown) => {
        if (failure) return fail(failure);
        try { answer(); } catch (e) { fail(e); }
      });
    };
    try {
      parts.firstLayer(request, response, run);
    } catch (e) {
      fail(e);
    }
  };
}
