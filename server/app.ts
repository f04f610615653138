// Builds the Express app: global middleware, the console API, the workspace API with one bind
// per module, the console UI, and the error handler last. It never listens.
import express, { Router, type Request, type RequestHandler } from 'express';
import { timingSafeEqual } from 'node:crypto';
import type { AppContext, Module } from './modules/context.js';
import { ApiError, errorHandler, noRoute, notFoundHandler } from './core/errors.js';
import { cors, jsonBody, loopbackHostGuard } from './core/http.js';
import { authenticate } from './modules/auth/index.js';
import { isLoopbackHost } from './core/config.js';
import { requestLogMiddleware } from './modules/request-log/index.js';
import { consoleDistDir, mountConsole } from './console-ui.js';
import { applyExpressTricks, dispatchByPrefix, hasRoute, recordGet, routeFirst, routeSegments, series } from './express/index.js';
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
    injectFaults(ctx), // the workspace's fault rules (a test suite's latency and error statuses)
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
  const v2 = mountV2(app, ctx, { pipeline: workspacePipeline, routers: moduleRouters, dispatch: dispatchByPrefix(moduleRouters), firstLayer, onError: errorHandler });

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
  // The hottest request, GET of one record by id, skips Express's routers in v1 and v2 alike.
  applyExpressTricks(app, [v2.recordGet, recordGet({ firstLayer, pipeline: workspacePipeline, onError: errorHandler })]);
  return app;
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
