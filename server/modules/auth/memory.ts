// What the auth module holds for one server: its login limiter (two servers in one process never
// share counts), made on first use.
import type { BaseContext } from '../context.js';
import type { LoginLimiter } from './rate-limit.js';

export interface AuthState { limiter?: LoginLimiter }

export function create(_ctx: BaseContext): AuthState {
  return {};
}
