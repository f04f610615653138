// Who is calling a workspace route, and the guards every module's handlers use: req.auth (read
// from the token by the auth module's middleware), the signed-in and admin checks, the
// admin-only route group, and the bus actor of a request. Knows no token or session: only the
// caller the auth module put on the request.
import type { Request, RequestHandler, Router } from 'express';
import { ApiError } from '../core/errors.js';
import type { Workspace } from '../storage/workspace.js';
import type { UserDoc } from './users/index.js';

export interface AuthInfo {
  userId: string;
  role: string;
  isAdmin: boolean;
  sessionId: string;
  /** The admin behind an impersonation token. */
  impersonatedBy?: string;
  user: UserDoc;
  /** Set when the caller is an API key (X-API-Key): its id and scopes. */
  apiKey?: { id: string; scopes: readonly string[] };
}

declare module 'express-serve-static-core' {
  interface Request {
    /** The workspace of a `/app/{app_id}` request. */
    ws: Workspace;
    /** The signed-in caller, or null for an anonymous request. */
    auth: AuthInfo | null;
    /** Access-rule outcome recorded for the request log. */
    accessRule?: string;
  }
}

export function requireUser(req: Request): AuthInfo {
  if (!req.auth) throw ApiError.unauthorized();
  return req.auth;
}

export function requireAdmin(req: Request): AuthInfo {
  const auth = requireUser(req);
  if (!auth.isAdmin) throw ApiError.forbidden('An administrator token is required');
  return auth;
}

/** Guard of admin-only routes: 401 without a caller, 403 for a non-admin. */
const guardAdmin: RequestHandler = (req, _res, next) => { requireAdmin(req); next(); };

type Route = (path: string, ...handlers: RequestHandler[]) => AdminRouter;
export interface AdminRouter { get: Route; post: Route; put: Route; patch: Route; delete: Route }

/** The routes registered through the returned object are for administrators only: the guard
 *  runs before their handlers, once for the whole group, so that a new route cannot forget it.
 *  They go into `router` itself, in registration order among its other routes. */
export function adminOnly(router: Router): AdminRouter {
  const route = (method: 'get' | 'post' | 'put' | 'patch' | 'delete'): Route => (path, ...handlers) => {
    router[method](path, guardAdmin, ...handlers);
    return admin;
  };
  const admin: AdminRouter = { get: route('get'), post: route('post'), put: route('put'), patch: route('patch'), delete: route('delete') };
  return admin;
}

/** The bus actor for a request. */
export function actorOf(req: Request) {
  return req.auth ? { _id: req.auth.userId, role: req.auth.role, ...(req.auth.impersonatedBy ? { impersonatedBy: req.auth.impersonatedBy } : {}) } : undefined;
}
