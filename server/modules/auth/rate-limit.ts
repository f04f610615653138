// Failed-login limiter (CONTRACT §3): more than `limit` failures for one email within a
// minute → 429 with Retry-After. An attempt is reserved before the password is checked and
// forgiven when it succeeds, so parallel guesses cannot slip past the limit and successful
// logins never count. In memory: a restart forgets it.
import { ApiError } from '../../core/errors.js';

const WINDOW_MS = 60_000;
const SWEEP_AT = 10_000;

export class LoginLimiter {
  private failures = new Map<string, number[]>();

  constructor(private readonly limit: number | false) {}

  /** Reserves an attempt for `key`; throws 429 once the window holds `limit` failures. */
  begin(key: string): number | undefined {
    if (this.limit === false) return undefined;
    const now = Date.now();
    const recent = this.recent(key, now);
    if (recent.length >= this.limit) {
      throw ApiError.rateLimited(Math.max(1, Math.ceil((recent[0] + WINDOW_MS - now) / 1000)));
    }
    recent.push(now);
    this.failures.set(key, recent);
    if (this.failures.size > SWEEP_AT) this.sweep(now);
    return now;
  }

  /** The attempt succeeded: it does not count. */
  forgive(key: string, stamp: number | undefined): void {
    if (stamp === undefined) return;
    const list = this.failures.get(key);
    const i = list?.indexOf(stamp) ?? -1;
    if (list && i >= 0) list.splice(i, 1);
    if (list && list.length === 0) this.failures.delete(key);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((t) => t > now - WINDOW_MS);
  }

  private sweep(now: number): void {
    for (const [key, list] of this.failures) if (!list.some((t) => t > now - WINDOW_MS)) this.failures.delete(key);
  }
}
