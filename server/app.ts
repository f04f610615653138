// Builds the Express app: global middleware, the console API, the workspace API with one bind
// per module, the console UI, and the error handler last. It never listens.
import express, { Router, type Request, type RequestHandler } from 'express';
import { timingSafeEqual } from 'node:crypto';
import type { AppContext, Module } from './modules/context.js';
import { ApiError, errorHandler, noRoute, notFoundHandler } from './core/errors.js';
import { JSON_TEXT, cors, jsonBody, loopbackHostGuard, plainJsonResponse, writeJsonText } from './core/http.js';
import { authenticate } from './modules/auth/index.js';
import { isLoopbackHost } from './core/config.js';
import { installRecordGetFastPath } from './modules/database/index.js';
import { requestLogMiddleware } from './modules/request-log/index.js';
import { consoleDistDir, mountConsole } from './console-ui.js';
import { declareFieldsFirst } from './core/request-shape.js';
import { touchWorkspace } from './modules/workspaces/index.js';
import { mountV2 } from './v2/index.js';
import { mountOAuth } from './modules/oauth/index.js';
import { readsOwnBody } from './v2/graphql/route.js';
import { injectFaults } from './modules/faults/index.js';
import { afterFirstAdmin } from './modules/workspaces/index.js';

/** Routes that read their own body (multipart uploads, tus, imports). */
const RAW_BODY_PATHS = [/^\/storage\/upload(\/|$)/];

export function buildApp(ctx: AppContext, modules: Module[]): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.response.json = fastJson(app.response.json);
  // nosniff and the Host guard as one layer (each layer costs every request a path match).
  const hostGuard = isLoopbackHost(ctx.config.host) ? loopbackHostGuard() : undefined;
  const firstLayer: RequestHandler = (req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (hostGuard) hostGuard(req, res, next);
    else next();
  };
  app.use(firstLayer);

  // Workspace API (mounted first: it takes most requests, and no route before it took its
  // paths): CORS for any origin, workspace resolved, token read. The steps run as one
  // Express layer (`series`): each layer Express walks costs a path match and param handling on
  // every request, a measurable share of a record GET (docs/performance.md).
  const resolveWorkspace: RequestHandler = (req, _res, next) => {
    req.ws = ctx.registry.require((req.params as { appId: string }).appId);
    req.ws.assertAvailable();
    touchWorkspace(ctx, req.ws); // a fork's idle deadline moves
    afterFirstAdmin(ctx, req.ws, next); // at once unless an in-memory start is still storing its admin
  };
  // Module routes read only their own params (the workspace is req.ws): no mergeParams, which
  // measurably slowed every request (docs/performance.md).
  const moduleRouters = modules.map((m) => {
    const router = Router();
    m.workspaceRoutes?.(router, ctx);
    return router;
  });
  const workspacePipeline = series([
    cors,
    requestLogMiddleware(ctx), // request log + in-flight count (restore waits on it)
    resolveWorkspace,
    injectFaults, // the workspace's fault rules (a test suite's latency and error statuses)
    // req.path parses the URL: only when it can be a raw-body path (they all hold 'upload').
    // A body refused (415, 413, bad JSON) on a path no route takes is that path's 404.
    routeFirst(jsonBody(ctx.config.jsonLimit, (req) => (req.url.includes('upload') && RAW_BODY_PATHS.some((re) => re.test(req.path))) || readsOwnBody(req)),
      (req) => hasRoute(moduleRouters, req, true)),
    authenticate((token) => isConsoleToken(ctx, token)),
  ]);
  app.use('/api/app/:appId', workspacePipeline, dispatchByPrefix(moduleRouters));
  // OAuth 2.0's protocol endpoints (form bodies, RFC 6749 errors) before the v2 face.
  mountOAuth(app, ctx);
  // The v2 preview: a second face over the same pipeline, routers and services (server/v2/).
  mountV2(app, ctx, { pipeline: workspacePipeline, routers: moduleRouters, dispatch: dispatchByPrefix(moduleRouters), firstLayer, onError: errorHandler });

  // The hottest request, GET of one record by id, skips Express's routers (database module).
  installRecordGetFastPath(app, ctx, { firstLayer, pipeline: workspacePipeline, onError: errorHandler });
  declareFieldsFirst(app); // outermost: before the fast path and Express change the prototypes

  app.get('/api/health', (_req, res) => { res.json({ status: 'ok', version: ctx.config.version }); });

  // Console API: console token, no cross-origin access.
  const consoleApi = Router();
  consoleApi.use(requireConsoleToken(ctx));
  consoleApi.param('appId', (req, _res, next, id: string) => { req.ws = ctx.registry.require(id); touchWorkspace(ctx, req.ws); afterFirstAdmin(ctx, req.ws, next); });
  consoleApi.use(routeFirst(jsonBody(ctx.config.jsonLimit, (req) => /^\/workspaces\/[^/]+\/import$/.test(req.path)),
    (req) => hasRoute([consoleApi], req, false)));
  for (const m of modules) m.consoleRoutes?.(consoleApi, ctx);
  app.use('/api', (req, res, next) => (req.path === '/workspaces' || req.path.startsWith('/workspaces/') ? consoleApi(req, res, next) : next()));

  // Under /api but outside both APIs: the commonest slip is leaving out /app/{app_id}; the next
  // is a path under a workspace that no group serves.
  app.use('/api', (req, _res, next) => {
    const inWorkspace = /^\/app\/([^/]+)/.exec(req.path);
    if (inWorkspace) {
      const groups = [...routeSegments(moduleRouters)].sort().map((g) => `/${g}`).join(', ');
      next(noRoute(req.method, req.originalUrl, `. The workspace API's groups are ${groups}; its reference is at /app/${inWorkspace[1]}/api/`));
      return;
    }
    const ids = ctx.registry.list().map((w) => w._id);
    const example = ids.includes(ctx.config.workspace) ? ctx.config.workspace : ids[0] ?? ctx.config.workspace;
    next(noRoute(req.method, req.originalUrl, `. The workspace API is under /api/app/{app_id}: try /api/app/${example}${req.path === '/' ? '' : req.path}`
      + ` (workspaces: ${ids.join(', ') || 'none'}); the console API is under /api/workspaces`));
  });

  // The console UI (dist/console, built by Vite), when it has been built.
  mountConsole(app, consoleDistDir());

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}

/** res.json without Express's res.send work (content-type parsing, charset, freshness) when
 *  core/http.ts's plainJsonResponse allows; anything else goes to Express's own res.json. */
function fastJson(original: express.Response['json']): express.Response['json'] {
  return function json(this: express.Response, value: unknown) {
    if (!plainJsonResponse(this)) return original.call(this, value);
    const body = (value as { [JSON_TEXT]?: string } | null)?.[JSON_TEXT] ?? JSON.stringify(value);
    if (typeof body !== 'string') return original.call(this, value); // a value JSON cannot encode
    return writeJsonText(this, body);
  };
}

/** Runs middleware in order as one handler, as Express would (an error, thrown or passed to
 *  next or rejected by an async handler, skips to `next(err)`). */
function series(handlers: RequestHandler[]): RequestHandler {
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
function dispatchByPrefix(routers: Router[]): RequestHandler {
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
function routeSegments(routers: Router[]): Set<string> {
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
function routeFirst(parse: RequestHandler, exists: (req: Request) => boolean): RequestHandler {
  return (req, res, next) => parse(req, res, (err?: unknown) => next(err && !exists(req) ? noRoute(req.method, req.originalUrl) : err));
}

/** Does any route of these routers take the request's method and path? A middleware layer
 *  matching the path counts as a route when `middlewareCounts` (it may answer anything). */
function hasRoute(routers: Router[], req: Request, middlewareCounts: boolean): boolean {
  type Layer = { route?: { _handlesMethod(m: string): boolean }; match(path: string): unknown };
  for (const router of routers) {
    for (const layer of router.stack as unknown as Layer[]) {
      if (layer.route ? layer.route._handlesMethod(req.method) && layer.match(req.path) : middlewareCounts && layer.match(req.path)) return true;
    }
  }
  return false;
}

function isConsoleToken(ctx: AppContext, token: string): boolean {
  const expected = Buffer.from(ctx.registry.consoleToken);
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function requireConsoleToken(ctx: AppContext) {
  return (req: Request, _res: unknown, next: (err?: unknown) => void) => {
    const header = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m || !isConsoleToken(ctx, m[1])) {
      return next(ApiError.unauthorized('Console token required: Authorization: Bearer <console token>'));
    }
    next();
  };
}
