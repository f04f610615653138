// The v2 record GET by id (`GET /api/v2/app/{app_id}/database/{collection}/{id}`) as a fast GET
// (server/express/fast-get.ts), as v1's is: the app's first layer, the same workspace pipeline and
// rate limit, the same record read, the answer written as sendOne writes it (envelope, ETag, 304,
// fields=; envelope.ts sendStoredRecord).
// Requests that may be compressed (an Accept-Encoding naming br or gzip) and ids that are not
// plain take the ordinary v2 route.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ID_SOURCE, isReservedRecordId } from '../core/ids.js';
import { accessLabel, getCollection, readRecord, type RecordReadAhead } from '../modules/database/index.js';
import { recordReadAhead } from '../express/record-get.js';
import type { FastGet } from '../express/fast-get.js';
import { sendStoredRecord } from './envelope.js';
import { answerInV2Shape } from './face.js';

const ID = `(${ID_SOURCE})`;
const RECORD_GET = new RegExp(`^/api/v2/app/${ID}/database/${ID}/${ID}/?(?:\\?|$)`);
const COMPRESSIBLE = /\b(?:br|gzip)\b/i;

export interface V2FastPathParts {
  firstLayer: RequestHandler;
  pipeline: RequestHandler;
  /** The v2 rate limit, when on. */
  limit?: RequestHandler;
  onError: ErrorRequestHandler;
}

export function v2RecordGet(parts: V2FastPathParts): FastGet {
  return {
    match(req) {
      const m = RECORD_GET.exec(req.url);
      const encoding = req.headers['accept-encoding'];
      return m && !isReservedRecordId(m[3]) && !(encoding !== undefined && COMPRESSIBLE.test(encoding)) ? m : null;
    },
    firstLayer: parts.firstLayer,
    pipeline: parts.pipeline,
    ...(parts.limit ? { limit: parts.limit } : {}),
    fail: (err, request, response) => { answerInV2Shape(request, response); parts.onError(err, request, response, () => undefined); },
    // While the token is checked against a database, the record is read with its session and
    // user (one round trip instead of two), as on v1.
    readAhead: (request, [, , collection, id]) => recordReadAhead(request, collection, id),
    answer(request, response, [, appId, collection, id], fail, ahead) {
      request.params = { collection, id };
      request.accessRule = accessLabel(getCollection(request.ws, collection), 'read', request.auth);
      // What compression would have said of a JSON answer it left uncompressed.
      response.setHeader('Vary', 'Accept-Encoding');
      const record = readRecord(request.ws, collection, id, { auth: request.auth }, ahead as RecordReadAhead | undefined);
      if (record instanceof Promise) record.then((doc) => sendStoredRecord(request, response, doc, { appId, collection, id }), fail);
      else sendStoredRecord(request, response, record, { appId, collection, id });
    },
  };
}
