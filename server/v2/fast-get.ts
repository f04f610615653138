// The v2 record GET by id (`GET /api/v2/app/{app_id}/database/{collection}/{id}`) answered
// before Express's app router, as v1's is (modules/database/fast-path.ts): the app's first layer,
// the same workspace pipeline and rate limit, the same service call, the answer written by
// sendOne (envelope, ETag, 304, fields=). Requests that may be compressed (an Accept-Encoding
// naming br or gzip) and ids that are not plain take the ordinary v2 route.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
import type { AppContext } from '../modules/context.js';
import { ID_SOURCE, isReservedRecordId } from '../core/ids.js';
import { adoptAsExpress } from '../core/request-shape.js';
import { accessLabel, getCollection, readRecord } from '../modules/database/index.js';
import type { Doc } from '../storage/query.js';
import { sendOne, workspaceUrl } from './envelope.js';
import { answerInV2Shape } from './face.js';

const ID = `(${ID_SOURCE})`;
const RECORD_GET = new RegExp(`^/api/v2/app/${ID}/database/${ID}/${ID}/?(?:\\?|$)`);
const COMPRESSIBLE = /\b(?:br|gzip)\b/i;

type Handle = (req: IncomingMessage, res: ServerResponse, callback?: (err?: unknown) => void) => void;

export interface V2FastPathParts {
  firstLayer: RequestHandler;
  pipeline: RequestHandler;
  /** The v2 rate limit, when on. */
  limit?: RequestHandler;
  onError: ErrorRequestHandler;
}

export function installV2RecordGetFastPath(app: Express, ctx: AppContext, parts: V2FastPathParts): void {
  const target = app as unknown as { handle: Handle };
  const routed = target.handle;
  target.handle = function handle(this: Express, req, res, callback) {
    const m = req.method === 'GET' && req.url ? RECORD_GET.exec(req.url) : null;
    const encoding = req.headers['accept-encoding'];
    if (!m || isReservedRecordId(m[3]) || (encoding !== undefined && COMPRESSIBLE.test(encoding))) return routed.call(this, req, res, callback);
    const { request, response } = adoptAsExpress(app, req, res);
    const [, appId, collection, id] = m;
    const fail = (err: unknown) => { answerInV2Shape(request, response); parts.onError(err, request, response, () => undefined); };
    const answer = () => {
      request.params = { collection, id };
      request.accessRule = accessLabel(getCollection(request.ws, collection), 'read', request.auth);
      // What compression would have said of a JSON answer it left uncompressed.
      response.setHeader('Vary', 'Accept-Encoding');
      const send = (doc: Doc) => sendOne(request, response, 200, doc, { collection: workspaceUrl(request, `/database/${collection}`) });
      const record = readRecord(request.ws, collection, id, { auth: request.auth });
      if (record instanceof Promise) record.then(send, fail);
      else send(record);
    };
    const afterPipeline = (failure?: unknown) => {
      if (failure) return fail(failure);
      try { answer(); } catch (e) { fail(e); }
    };
    const run = (err?: unknown) => {
      if (err) return fail(err);
      request.params = { appId };
      parts.pipeline(request, response, (failure?: unknown) => {
        if (parts.limit) parts.limit(request, response, (over?: unknown) => afterPipeline(over ?? failure));
        else afterPipeline(failure);
      });
    };
    try {
      parts.firstLayer(request, response, run);
    } catch (e) {
      fail(e);
    }
  };
}
