// v1's record GET by id (`GET /api/app/{app_id}/database/{collection}/{id}`), the hottest
// request, as a fast GET (fast-get.ts): the same pipeline and the same record read as the route
// in modules/database/routes.ts. Only plain ids (no percent-encoding) that are not schema parts
// (`fields`, `views`, `indexes`) take it; everything else goes the ordinary way.
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { ID_SOURCE, isReservedRecordId } from '../core/ids.js';
import { sendStoredDoc } from '../core/http.js';
import { bearerToken, verifiedClaims } from '../modules/auth/index.js';
import { accessLabel, getCollection, readRecord, readRecordAhead, type RecordReadAhead } from '../modules/database/index.js';
import type { FastGet } from './fast-get.js';

const ID = `(${ID_SOURCE})`;
/** `/api/app/{app_id}/database/{collection}/{id}`. */
const RECORD_GET = new RegExp(`^/api/app/${ID}/database/${ID}/${ID}/?(?:\\?|$)`);

export interface RecordGetParts {
  firstLayer: RequestHandler;
  pipeline: RequestHandler;
  onError: ErrorRequestHandler;
}

export function recordGet(parts: RecordGetParts): FastGet {
  return {
    match(req) {
      const m = RECORD_GET.exec(req.url);
      return m && !isReservedRecordId(m[3]) ? m : null;
    },
    firstLayer: parts.firstLayer,
    pipeline: parts.pipeline,
    fail: (err, request, response) => parts.onError(err, request, response, () => undefined),
    // While the token is checked against a database, the record is read with its session and
    // user (service.ts readRecordAhead): one round trip instead of two.
    readAhead: (request, [, , collection, id]) => recordReadAhead(request, collection, id),
    answer(request, response, [, , collection, id], fail, ahead) {
      request.params = { collection, id };
      request.accessRule = accessLabel(getCollection(request.ws, collection), 'read', request.auth);
      const record = readRecord(request.ws, collection, id, { auth: request.auth }, ahead as RecordReadAhead | undefined);
      if (record instanceof Promise) record.then((r) => { sendStoredDoc(response, r); }, fail);
      else sendStoredDoc(response, record);
    },
  };
}

/** The read of record `id` begun while the caller's token is checked against the database
 *  (readRecordAhead), for a bearer token whose signature, expiry and workspace have passed:
 *  the token is this workspace's, and only its session is left to check. Never for an API key
 *  (any value of the right shape is looked up in the database) nor a token that fails those
 *  checks: a read started for them would let anyone have any record read, its size then
 *  showing in how long the refusal takes. Undefined when there is none; never throws. */
export function recordReadAhead(request: Request, collection: string, id: string): RecordReadAhead | undefined {
  try {
    if (!request.ws || request.headers['x-api-key'] !== undefined) return undefined;
    const token = bearerToken(request);
    if (!token) return undefined;
    verifiedClaims(request.ws, token); // throws for a forged, expired or foreign token
    return readRecordAhead(request.ws, collection, id);
  } catch {
    return undefined;
  }
}
