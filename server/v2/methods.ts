// 405 with Allow: a path that exists under another method. The methods a path takes are read
// from the routers that serve it (the v2 routes, then the v1 routes the v2 face runs).
import type { Request, RequestHandler, Router } from 'express';
import { ApiError, noRoute } from '../core/errors.js';

function methodError(req: Request, allowed: string[]): ApiError {
  const list = allowed.includes('GET') && !allowed.includes('HEAD') ? [...allowed, 'HEAD'] : allowed;
  return new ApiError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.originalUrl.split('?')[0]}; allowed: ${list.join(', ')}`,
    { method: req.method, allowed: list }, { Allow: list.join(', ') });
}

/** A route answering 405 to every method but `allowed` (which pass on to the next route). */
export function methodNotAllowed(allowed: string[]): RequestHandler {
  return (req, _res, next) => {
    if (allowed.includes(req.method) || (req.method === 'HEAD' && allowed.includes('GET')) || req.method === 'OPTIONS') return next();
    next(methodError(req, allowed));
  };
}

/** The methods the routers' routes take on `path`. */
export function allowedMethods(routers: Router[], path: string): string[] {
  type Layer = { route?: { methods: Record<string, boolean> }; match(path: string): boolean };
  const out = new Set<string>();
  for (const router of routers) {
    for (const layer of router.stack as unknown as Layer[]) {
      if (!layer.route || !layer.match(path)) continue;
      for (const [m, on] of Object.entries(layer.route.methods)) if (on && m !== '_all') out.add(m.toUpperCase());
    }
  }
  return [...out].sort();
}

/** The last handler under a workspace: 405 with Allow when the path exists under other methods,
 *  else 404. */
export function noMethodOrRoute(routers: () => Router[]): RequestHandler {
  return (req, _res, next) => {
    const allowed = allowedMethods(routers(), req.path).filter((m) => m !== req.method);
    next(allowed.length && !allowed.includes(req.method) ? methodError(req, allowed) : noRoute(req.method, req.originalUrl));
  };
}
