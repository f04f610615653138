// The bound on realtime sockets one principal may hold open in a workspace (per process): a
// signed-in user counts by user id (every session and device together), an anonymous socket by
// the client's address. Beyond it the upgrade is refused with 429 RATE_LIMITED.
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../core/errors.js';
import type { AuthInfo } from '../caller.js';

/** Seconds a refused client is told to wait before trying again (a socket must close first). */
const RETRY_AFTER_SECONDS = 5;

/** Who a socket counts against. */
export function principalOf(auth: AuthInfo | null, req: IncomingMessage): string {
  return auth ? `user:${auth.userId}` : `addr:${req.socket.remoteAddress ?? ''}`;
}

export function socketCapError(max: number, signedIn: boolean): ApiError {
  const who = signedIn ? 'per user' : 'per client address for anonymous sockets';
  return new ApiError('RATE_LIMITED', `At most ${max} realtime connections ${who} are open at once; close one before opening another`,
    { limit: max, retryAfter: RETRY_AFTER_SECONDS }, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
}
