// The v2 preview API, `{base_url}/v2/app/{app_id}/...`: a second HTTP face over the same
// module routers and services as v1. The same workspace pipeline runs first (request log,
// workspace, JSON body, token), then the rate limit and compression; the v2 routes of records
// answer first, every other path runs the v1 route with its answer written in the v2 shape
// (face.ts); a path that exists under other methods is a 405 with Allow.
import { Router, type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { AppContext } from '../modules/context.js';
import { answerInV2Shape } from './face.js';
import { extendListQuery } from './list-extension.js';
import { noMethodOrRoute } from './methods.js';
import { recordRoutes } from './records.js';
import { v2RecordGet } from './fast-get.js';
import type { FastGet } from '../express/index.js';
import { openapiV2Route } from './openapi-v2.js';
import { v2RateLimit } from './rate-limit.js';
import { v2Compression } from './compression.js';
import { batchRoute } from './batch.js';
import { injectedRequests } from './inject.js';
import { methodNotAllowed } from './methods.js';
import { cors, jsonBody } from '../core/http.js';
import { apiKeyRoutes } from '../modules/api-keys/index.js';
import { oauthClientRoutes } from '../modules/oauth/index.js';
import { graphqlRoute } from './graphql/route.js';
import { ifMatchOnV1Routes } from './if-match.js';
import { putReplaces } from '../core/change-mode.js';

export interface V2Parts {
  /** The workspace pipeline of v1 (CORS, request log, workspace, JSON body, token). */
  pipeline: RequestHandler;
  /** The module routers of v1, in mount order, and their dispatcher. */
  routers: Router[];
  dispatch: RequestHandler;
  /** The app's first layer (nosniff, Host guard) and error handler, for the record GET's fast path. */
  firstLayer: RequestHandler;
  onError: ErrorRequestHandler;
}

/** Mounts the v2 routes; returns v2's record GET for the app to take off Express's routers. */
export function mountV2(app: Express, ctx: AppContext, parts: V2Parts): { recordGet: FastGet } {
  const own = Router();
  own.get('/openapi.json', openapiV2Route(ctx));
  recordRoutes(own, ctx);
  apiKeyRoutes(own);
  oauthClientRoutes(own, ctx);
  graphqlRoute(own, ctx);

  const limit = v2RateLimit(ctx.config.rateLimit);
  const compress = v2Compression();
  const enter: RequestHandler = (req, res, next) => {
    answerInV2Shape(req, res);
    putReplaces(req); // a v2 PUT replaces the whole resource (the routes are v1's)
    // The pipeline's refusals (unknown workspace, bad token, bad body) are counted too.
    // A batch's operations were counted as the batch.
    parts.pipeline(req, res, (err?: unknown) => (limit && !injectedRequests.has(req) ? limit(req, res, (over?: unknown) => next(over ?? err)) : next(err)));
  };
  // v1 lists read the query through the shared parser: give it the v2 extension (or, cursor).
  const v1Face: RequestHandler = (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') extendListQuery(req, `${req.ws.id}${req.path}`);
    parts.dispatch(req, res, next);
  };
  app.use('/api/v2/app/:appId', enter, compress, own, ifMatchOnV1Routes(parts.dispatch), v1Face, noMethodOrRoute(() => [own, ...parts.routers]));

  const batchEntry: RequestHandler = (req, res, next) => {
    answerInV2Shape(req, res);
    cors(req, res, () => (limit ? limit(req, res, next) : next()));
  };
  app.post('/api/v2/batch', batchEntry, compress, jsonBody(ctx.config.jsonLimit), batchRoute(app, ctx));
  app.all('/api/v2/batch', batchEntry, methodNotAllowed(['POST']));
  return { recordGet: v2RecordGet({ firstLayer: parts.firstLayer, pipeline: parts.pipeline, ...(limit ? { limit } : {}), onError: parts.onError }) };
}
