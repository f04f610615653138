// HTTP plumbing shared by every route: JSON bodies (400 / 413 / 415), the loopback Host check,
// CORS for the workspace API, and small response helpers.
import express, { type Request, type RequestHandler } from 'express';
import { ApiError } from './errors.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Parses JSON bodies of POST/PUT/PATCH into an object; req.body is {} when there is none.
 *  `skip` lets raw-body routes (uploads, tus) pass through untouched. */
export function jsonBody(limit: number, skip: (req: Request) => boolean = () => false): RequestHandler {
  const parse = express.json({ limit, strict: true, type: () => true });
  return (req, res, next) => {
    if (skip(req)) return next();
    if (!BODY_METHODS.has(req.method) || !hasBody(req)) { req.body = {}; return next(); }
    if (!req.is('application/json') && !req.is('application/*+json')) return next(ApiError.unsupportedMediaType());
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
        return next(ApiError.badRequest('Request body must be a JSON object'));
      }
      next();
    });
  };
}

/** DNS-rebinding guard for a loopback-bound server: Host must be an IP literal, localhost or *.localhost. */
export function loopbackHostGuard(): RequestHandler {
  return (req, _res, next) => {
    const host = (req.headers.host ?? '').toLowerCase();
    const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
    const ok = name === '' || name === 'localhost' || name.endsWith('.localhost') || /^\d{1,3}(\.\d{1,3}){3}$/.test(name) || name.includes(':');
    next(ok ? undefined : ApiError.forbidden(`Host '${name}' is not allowed; use localhost or an IP address`));
  };
}

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, Tus-Resumable, Upload-Length, Upload-Offset, Upload-Metadata, Upload-Defer-Length, Upload-Concat, X-HTTP-Method-Override, X-Requested-With, Range, If-None-Match',
  'Access-Control-Expose-Headers': 'Location, Upload-Offset, Upload-Length, Upload-Expires, Upload-Metadata, Tus-Resumable, Tus-Version, Tus-Extension, Tus-Max-Size, Content-Disposition, Content-Length, Content-Range, ETag, Retry-After',
  'Access-Control-Max-Age': '600',
};

/** CORS for any origin (bearer tokens, no cookies); answers preflights itself. */
export const cors: RequestHandler = (req, res, next) => {
  if (!req.headers.origin) return next();
  res.set(CORS_HEADERS);
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) { res.status(204).end(); return; }
  next();
};
