// Requests per caller per minute on the v2 API, counted in express-rate-limit's memory store (a
// fixed window per key, reset `windowMs` after the key's first hit, idle keys dropped): a
// signed-in caller (a user, an API key, an OAuth client) is counted per principal of the
// workspace, anyone else per client address. Every answer carries X-RateLimit-Limit,
// X-RateLimit-Remaining and X-RateLimit-Reset (seconds until the window resets); over the
// limit: 429 RATE_LIMITED with Retry-After. A limit of 0 turns it all off.
//
// The store is used directly rather than through the library's middleware: its count is
// updated at once (a caller's hit in the store's map of current keys, or the store's increment,
// which does its work before it returns), so the check runs in the request's own turn. The middleware's chain of awaits and its per-request bookkeeping
// (a WeakMap entry per request, to catch a request counted twice) cost a v2 GET by id a third
// of its time; a request here is counted once, by the entry of the v2 face or its fast path.
// Nothing is added to the request (no `req.rateLimit` as the middleware sets): a property added
// after Express changes the request's prototype gives every request a hidden class of its own
// (express/request-shape.ts), which cost a v2 GET by id about 30 us of CPU, ten times the
// limiter's own work.
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, MemoryStore, type Options } from 'express-rate-limit';
import { ApiError } from '../core/errors.js';

const WINDOW_MS = 60_000;

interface Hits { totalHits: number; resetTime?: Date }

function secondsLeft(hits: Hits, now: number): number {
  return Math.max(0, Math.ceil(((hits.resetTime?.getTime() ?? now + WINDOW_MS) - now) / 1000));
}

const keyOf = (req: Request) => (req.auth ? `user:${req.ws.id}:${req.auth.userId}` : `address:${ipKeyGenerator(req.ip ?? '')}`);

/** The limiter, or undefined for a limit of 0. */
export function v2RateLimit(limit: number): RequestHandler | undefined {
  if (limit <= 0) return undefined;
  const store = new MemoryStore();
  store.init({ windowMs: WINDOW_MS } as Options);
  const limitText = String(limit);
  const decide = (res: Response, next: (err?: unknown) => void, hits: Hits, now: number) => {
    const left = secondsLeft(hits, now);
    res.setHeader('X-RateLimit-Limit', limitText);
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - hits.totalHits)));
    res.setHeader('X-RateLimit-Reset', String(left));
    if (hits.totalHits <= limit) return next();
    const wait = Math.max(1, left);
    next(new ApiError('RATE_LIMITED', `More than ${limit} requests in a minute from this caller; retry in ${wait} s`, { retryAfter: wait, limit }, { 'Retry-After': String(wait) }));
  };
  return (req, res, next) => {
    const key = keyOf(req);
    const now = Date.now();
    // A caller already counted in a window still open (nearly every request): the store's
    // increment done in place, as the store does it (one more hit on its client in its map of
    // current keys), without the promise of its async increment.
    const current = store.current.get(key);
    if (current !== undefined && current.resetTime.getTime() > now) {
      current.totalHits++;
      return decide(res, next, current, now);
    }
    // Anyone else through the store's increment, which counts before it returns: the count is
    // read now, in this turn.
    const counted = store.increment(key);
    const client = store.current.get(key);
    if (client) {
      counted.catch(ignore);
      return decide(res, next, client, now);
    }
    counted.then((hits) => decide(res, next, hits, Date.now()), next);
  };
}

const ignore = () => undefined;
