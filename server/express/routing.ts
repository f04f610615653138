// The app's routing over Express's routers, reading their internals (`router.stack`, a layer's
// `route`, `match` and `_handlesMethod`): module routers run as Express would mount them, but
// only those whose routes can match the first path segment; the middleware of one pipeline runs
// as a single layer; a body refused on a path no route takes is that path's 404. Express walking
// every layer of every module router on each request was most of a record GET's routing time
// (docs/performance.md). Tied to Express 5's router: a router upgrade is checked here.
import type { Request, RequestHandler, Router } from 'express';
import { noRoute } from '../core/errors.js';

/** Runs middleware in order as one handler, as Express would (an error, thrown or passed to
 *  next or rejected by an async handler, skips to `next(err)`). */
export function series(handlers: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err || i >= handlers.length) { next(err); return; }
      const handler = handlers[i++];
      try {
        const out = handler(req, res, step) as unknown;
        if (out instanceof Promise) out.catch((e: unknown) => step(e ?? new Error('Rejected promise')));
      } catch (e) {
        step(e);
      }
    };
    step();
  };
}

/** Runs the module routers in mount order, but only those that can match the request: a router
 *  whose routes all start with a fixed first segment (`/database/...`) is skipped for other
 *  paths; one with a middleware or a pattern in first place is always run. Same outcome as
 *  mounting each router with `use`, without Express walking every layer of every module router
 *  on each request, which was most of the routing time of a record GET (docs/performance.md). */
export function dispatchByPrefix(routers: Router[]): RequestHandler {
  let table: { bySegment: Map<string, Router[]>; always: Router[] } | undefined;
  let layers = -1;
  return (req, res, next) => {
    const count = routers.reduce((n, r) => n + r.stack.length, 0);
    if (!table || count !== layers) { layers = count; table = routingTable(routers); }
    const path = req.path;
    const end = path.indexOf('/', 1);
    // Express matches paths case-insensitively by default.
    const list = table.bySegment.get((end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase()) ?? table.always;
    let i = 0;
    const step = (err?: unknown) => {
      if (err || i >= list.length) { next(err); return; }
      list[i++](req, res, step);
    };
    step();
  };
}

/** The first path segments of the routes the routers declare (for messages). */
export function routeSegments(routers: Router[]): Set<string> {
  const out = new Set<string>();
  for (const router of routers) {
    for (const layer of router.stack as Array<{ route?: { path?: unknown } }>) {
      const m = typeof layer.route?.path === 'string' ? /^\/([A-Za-z0-9_.~-]+)(?:\/|$)/.exec(layer.route.path) : null;
      if (m) out.add(m[1].toLowerCase());
    }
  }
  return out;
}

function routingTable(routers: Router[]) {
  const firstSegments = routers.map((router) => {
    const out = new Set<string>();
    for (const layer of router.stack as Array<{ route?: { path?: unknown } }>) {
      const path = layer.route?.path;
      const m = typeof path === 'string' ? /^\/([A-Za-z0-9_.~-]+)(?:\/|$)/.exec(path) : null;
      if (!m) return null; // a middleware or a pattern: the router may take any path
      out.add(m[1].toLowerCase());
    }
    return out;
  });
  const always = routers.filter((_, i) => firstSegments[i] === null);
  const bySegment = new Map<string, Router[]>();
  for (const segment of new Set(firstSegments.flatMap((s) => (s ? [...s] : [])))) {
    bySegment.set(segment, routers.filter((_, i) => firstSegments[i] === null || firstSegments[i]!.has(segment)));
  }
  return { bySegment, always };
}

/** Runs a body parser, but a request it refuses on a path that no route takes is a 404: the
 *  route is decided before the body (a multipart POST to an unknown path is not a 415). Costs
 *  nothing on the way through: routes are looked up only when the body was refused. */
export function routeFirst(parse: RequestHandler, exists: (req: Request) => boolean): RequestHandler {
  return (req, res, next) => parse(req, res, (err?: unknown) => next(err && !exists(req) ? noRoute(req.method, req.originalUrl) : err));
}

/** Does any route of these routers take the request's method and path? A middleware layer
 *  matching the path counts as a route when `middlewareCounts` (it may answer anything). */
export function hasRoute(routers: Router[], req: Request, middlewareCounts: boolean): boolean {
  type Layer = { route?: { _handlesMethod(m: string): boolean }; match(path: string): unknown };
  for (const router of routers) {
    for (const layer of router.stack as unknown as Layer[]) {
      if (layer.route ? layer.route._handlesMethod(req.method) && layer.match(req.path) : middlewareCounts && layer.match(req.path)) return true;
    }
  }
  return false;
}
