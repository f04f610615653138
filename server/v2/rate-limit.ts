// Requests per caller per minute on the v2 API (express-rate-limit): a signed-in caller is
// counted per user of the workspace, anyone else per client address. Every answer carries
// X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (seconds until the window
// resets); over the limit: 429 RATE_LIMITED with Retry-After. A limit of 0 turns it all off.
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { ApiError } from '../core/errors.js';

const WINDOW_MS = 60_000;

interface Info { limit: number; remaining: number; resetTime?: Date }

function secondsLeft(info: Info): number {
  return Math.max(0, Math.ceil(((info.resetTime?.getTime() ?? Date.now() + WINDOW_MS) - Date.now()) / 1000));
}

function setHeaders(req: Request, res: Response): Info | undefined {
  const info = (req as Request & { rateLimit?: Info }).rateLimit;
  if (!info) return undefined;
  res.setHeader('X-RateLimit-Limit', String(info.limit));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, info.remaining)));
  res.setHeader('X-RateLimit-Reset', String(secondsLeft(info)));
  return info;
}

/** The limiter, or undefined for a limit of 0. */
export function v2RateLimit(limit: number): RequestHandler | undefined {
  if (limit <= 0) return undefined;
  const limiter = rateLimit({
    windowMs: WINDOW_MS,
    limit,
    standardHeaders: false,
    legacyHeaders: false,
    keyGenerator: (req) => (req.auth ? `user:${req.ws.id}:${req.auth.userId}` : `address:${ipKeyGenerator(req.ip ?? '')}`),
    handler: (req, res, next) => {
      const info = setHeaders(req, res);
      const wait = Math.max(1, info ? secondsLeft(info) : 60);
      next(new ApiError('RATE_LIMITED', `More than ${limit} requests in a minute from this caller; retry in ${wait} s`, { retryAfter: wait, limit }, { 'Retry-After': String(wait) }));
    },
  });
  return (req, res, next) => limiter(req, res, (err?: unknown) => {
    if (!err) setHeaders(req, res);
    next(err);
  });
}
