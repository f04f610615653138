// A GET answered before Express's app router runs at all: what app.handle and the router set up
// (circular references, prototypes, locals, originalUrl: adoptAsExpress), the app's first layer
// (nosniff, Host guard), then the same workspace pipeline and the same service call as the route,
// and errors to the same error handler. The path matching and parameter handling of the routers
// were a fifth of a record GET's CPU time, the app router's own walk a few per cent more
// (docs/performance.md). v1's and v2's record GET by id both take one (record-get.ts,
// v2/fast-get.ts); every request they do not match goes the ordinary way.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Request, RequestHandler, Response } from 'express';
import { adoptAsExpress } from './request-shape.js';

type Handle = (req: IncomingMessage, res: ServerResponse, callback?: (err?: unknown) => void) => void;

export interface FastGet {
  /** The request's match (`m[1]`: the workspace id), or null to leave it to Express. */
  match(req: IncomingMessage & { url: string }): RegExpExecArray | null;
  /** The app's first layer (nosniff, Host guard), run first as Express would. */
  firstLayer: RequestHandler;
  /** The workspace API's pipeline (CORS, request log, workspace, body, token). */
  pipeline: RequestHandler;
  /** Run after the pipeline whatever its outcome (v2's rate limit counts refusals too). */
  limit?: RequestHandler;
  /** Answers an error as the route's error handler would. */
  fail(err: unknown, request: Request, response: Response): void;
  /** Answers the request (its pipeline passed); throws or calls `fail` on an error. `ahead` is
   *  what `readAhead` returned for it, if it ran. */
  answer(request: Request, response: Response, m: RegExpExecArray, fail: (err: unknown) => void, ahead?: unknown): void;
  /** Called when the pipeline is still under way after its synchronous part (the token is being
   *  checked against stores that read remotely): may start the answer's own read now, so that it
   *  goes to the database with the token's. Never throws; what it returns is passed to `answer`. */
  readAhead?(request: Request, m: RegExpExecArray): unknown;
}

/** Takes the GETs `route` matches off `app.handle`. */
export function installFastGet(app: Express, route: FastGet): void {
  const target = app as unknown as { handle: Handle };
  const routed = target.handle;
  target.handle = function handle(this: Express, req, res, callback) {
    const m = req.method === 'GET' && req.url ? route.match(req as IncomingMessage & { url: string }) : null;
    if (!m) return routed.call(this, req, res, callback);
    const { request, response } = adoptAsExpress(app, req, res);
    const fail = (err: unknown) => route.fail(err, request, response);
    let passed = false;
    let ahead: unknown;
    const afterPipeline = (failure?: unknown) => {
      if (failure) return fail(failure);
      try { route.answer(request, response, m, fail, ahead); } catch (e) { fail(e); }
    };
    const run = (err?: unknown) => {
      if (err) return fail(err);
      request.params = { appId: m[1] };
      route.pipeline(request, response, (failure?: unknown) => {
        passed = true;
        if (route.limit) route.limit(request, response, (over?: unknown) => afterPipeline(over ?? failure));
        else afterPipeline(failure);
      });
      if (!passed && route.readAhead) ahead = route.readAhead(request, m);
    };
    try {
      route.firstLayer(request, response, run);
    } catch (e) {
      fail(e);
    }
  };
}
