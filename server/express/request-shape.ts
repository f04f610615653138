// The properties Homebase and Express add to Node's request and response objects, declared
// before Express changes their prototypes. V8 gives an object a new hidden class for each
// property added after Object.setPrototypeOf on it, and does not keep that class for the next
// object: every request paid a new map and a copy of its descriptor array per property added
// (about 1 KB each, a fifth of a record GET's allocation), and Node's own HTTP code met a new
// hidden class on every request. Declared first, the same properties follow one cached chain of
// hidden classes, and the later assignments only store values (docs/performance-history.md, change 17).
// Only plain data properties belong here: never a name that Express's request or response
// prototype defines (`query`, `path`, `host`, `json`, ...), which an own property would hide.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';

import { REQUEST_LOG } from '../core/http.js';
import { routerSymbols } from './router-symbols.js';

// Two symbols Express's router sets on a request it routes: a registered one, and one private to
// the router's module, read from that module as Express loads it (if a router version lacks it,
// its requests only cost more; server/test/request-shape.test.ts notices).
const ROUTER_ERRORS = Symbol.for('router.tracing.publishedErrors');
const ROUTER_MATCHED: symbol | undefined = (() => {
  const matchedRoute = routerSymbols()?.matchedRoute;
  return typeof matchedRoute === 'symbol' ? matchedRoute : undefined;
})();

type Handle = (req: IncomingMessage, res: ServerResponse, callback?: (err?: unknown) => void) => void;

/** Declares (as undefined) what Express, its router and body parser, the workspace pipeline and
 *  the routes add to a request and its response. Named stores, not a loop over names: a keyed
 *  store of a new property can turn an object with many properties into a slow dictionary. */
export function declareFields(req: IncomingMessage, res: ServerResponse): void {
  const r = req as unknown as Record<string, unknown>;
  // Express's app and router
  r.res = undefined; r.originalUrl = undefined; r.baseUrl = undefined; r.next = undefined;
  r.params = undefined; r.route = undefined; r._parsedUrl = undefined; r._parsedOriginalUrl = undefined;
  const k = req as unknown as Record<symbol, unknown>;
  k[ROUTER_ERRORS] = undefined;
  if (ROUTER_MATCHED) k[ROUTER_MATCHED] = undefined;
  // the JSON body parser; the workspace pipeline and routes (app.ts, authenticate.ts, routes.ts)
  r.body = undefined; r.ws = undefined; r.auth = undefined; r.accessRule = undefined; r.fault = undefined;
  // Inherited defaults that Node's own code later assigns on the object (the first listener
  // counted, the status written): the same values, made own now.
  r._eventsCount = r._eventsCount; // eslint-disable-line no-self-assign
  const s = res as unknown as Record<string | symbol, unknown>;
  s.locals = undefined;
  s[REQUEST_LOG] = undefined;
  s.statusCode = s.statusCode; // eslint-disable-line no-self-assign
  s.statusMessage = s.statusMessage; // eslint-disable-line no-self-assign
}

/** Declares the fields on every request before the app (and its fast path) sees it. */
export function declareFieldsFirst(app: Express): void {
  const target = app as unknown as { handle: Handle };
  const handle = target.handle;
  target.handle = function shaped(this: Express, req, res, callback) {
    declareFields(req, res);
    return handle.call(this, req, res, callback);
  };
}

/** What `app.handle` and Express's router set up on a request before any layer runs (the
 *  circular references, the app's prototypes, `locals`, `originalUrl`, `baseUrl`), for the fast
 *  paths that answer a record GET without the routers (fast-get.ts: record-get.ts,
 *  v2/fast-get.ts). Returns the same objects, typed as Express's. */
export function adoptAsExpress(app: Express, req: IncomingMessage, res: ServerResponse): { request: Request; response: Response } {
  const request = req as Request;
  const response = res as Response;
  request.res = response;
  response.req = request;
  Object.setPrototypeOf(request, app.request);
  Object.setPrototypeOf(response, app.response);
  if (!response.locals) response.locals = Object.create(null) as Record<string, unknown>;
  request.originalUrl = req.url!;
  request.baseUrl = '';
  return { request, response };
}
