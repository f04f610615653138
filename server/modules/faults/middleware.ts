// The workspace pipeline's fault step: a request the workspace's fault rules match waits
// `latencyMs`, then goes on or gets the rule's status with an `INJECTED_FAULT` error. Costs one
// property read when the workspace has no faults.
import type { RequestHandler } from 'express';
import type { AppContext } from '../context.js';
import { ApiError } from '../../core/errors.js';
import { requestFault, type FaultMark } from './service.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The fault rule that delayed or answered the request, for the request log. */
    fault?: FaultMark;
  }
}

/** The workspace path of a request URL: what follows `/api/app/{app_id}` (or
 *  `/api/v2/app/{app_id}`), without the query string, decoded. */
export function workspacePath(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const m = /^\/api(?:\/v2)?\/app\/[^/]+/.exec(path);
  const rest = m ? path.slice(m[0].length) : path;
  try {
    return decodeURIComponent(rest) || '/';
  } catch {
    return rest || '/';
  }
}

export function injectFaults(ctx: AppContext): RequestHandler {
  return (req, _res, next) => {
    if (req.ws.settings.data.faults === undefined) { next(); return; }
    const hit = requestFault(ctx, req.ws, req.method, workspacePath(req.originalUrl));
    if (!hit) { next(); return; }
    req.fault = hit.mark;
    const answer = () => next(hit.mark.status === undefined ? undefined : ApiError.injectedFault(hit.mark.status, hit.mark.rule));
    if (hit.mark.latencyMs) setTimeout(answer, hit.mark.latencyMs);
    else answer();
  };
}
