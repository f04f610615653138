// Failed-login limiter: more than `limit` failures for one email within a
// minute → 429 with Retry-After. Only failures that have happened count: an attempt in flight
// is not a failure, and a successful one never counts. So that parallel guesses still cannot
// slip past the limit, at most `limit - failures` attempts per email run at once; the others
// wait for one of them to end and then look again (a success lets them through, a failure may
// fill the window). In memory: a restart forgets it; reset, restore and import of a workspace
// clear its counters (`clearWorkspace`).
import { ApiError } from '../../core/errors.js';

const WINDOW_MS = 60_000;
const SWEEP_AT = 10_000;

interface KeyState {
  /** Times of the failures within the window, oldest first. */
  failures: number[];
  /** Attempts begun and not yet ended. */
  inFlight: number;
  /** Attempts waiting for an in-flight one to end. */
  waiting: Array<() => void>;
}

/** An attempt admitted by `begin`; `end` it exactly once. */
export interface Attempt { key: string; /** The database's row of a shared attempt. */ id?: string }

/** The counts kept where every process sharing the stores sees them (storage/processes.ts). */
export type { SharedLoginCounter as SharedLimiter } from '../../storage/processes.js';
import type { SharedLoginCounter as SharedLimiter } from '../../storage/processes.js';

/** A key `<workspace>\0<email>` as its two parts. */
function splitKey(key: string): [string, string] {
  const at = key.indexOf('\0');
  return [key.slice(0, at), key.slice(at + 1)];
}

export class LoginLimiter {
  private keys = new Map<string, KeyState>();

  constructor(private readonly limit: number | false) {}

  /** With several processes on one database the counts live there, shared by every process
   *  (the same rules), and this limiter only hands attempts over. */
  shared?: SharedLimiter;

  /** Admits an attempt for `key` (waiting while too many are in flight); throws 429 once the
   *  window holds `limit` failures. Returns undefined when the limiter is off. `now` gives the
   *  workspace's time (epoch ms): the window follows the workspace's clock. */
  async begin(key: string, now: () => number = Date.now): Promise<Attempt | undefined> {
    if (this.limit === false || this.limit <= 0) return undefined;
    if (this.shared) {
      const [workspace, email] = splitKey(key);
      return { key, id: await this.shared.begin(workspace, email, now) };
    }
    for (;;) {
      const at = now();
      const state = this.state(key, at);
      if (state.failures.length >= this.limit) {
        throw ApiError.rateLimited(Math.max(1, Math.ceil((state.failures[0] + WINDOW_MS - at) / 1000)));
      }
      if (state.failures.length + state.inFlight < this.limit) {
        state.inFlight++;
        return { key };
      }
      await new Promise<void>((resolve) => state.waiting.push(resolve));
    }
  }

  /** The attempt is over: a failure counts from now on, a success never does. */
  end(attempt: Attempt | undefined, failed: boolean, now: number = Date.now()): void {
    if (!attempt) return;
    if (this.shared && attempt.id) {
      void this.shared.end(attempt.id, failed, now).catch(() => undefined); // a lost row lapses by itself
      return;
    }
    const state = this.keys.get(attempt.key);
    if (!state) return;
    state.inFlight = Math.max(0, state.inFlight - 1);
    if (failed) state.failures.push(now);
    for (const wake of state.waiting.splice(0)) wake();
    if (state.inFlight === 0 && state.failures.length === 0 && state.waiting.length === 0) this.keys.delete(attempt.key);
  }

  /** Forgets the failures of one workspace (keys are `<workspace>\0<email>`). Attempts in
   *  flight still end normally. */
  clearWorkspace(workspaceId: string): void {
    if (this.shared) void this.shared.clearWorkspace(workspaceId).catch(() => undefined);
    const prefix = `${workspaceId}\0`;
    for (const [key, state] of this.keys) {
      if (!key.startsWith(prefix)) continue;
      state.failures = [];
      for (const wake of state.waiting.splice(0)) wake();
      if (state.inFlight === 0) this.keys.delete(key);
    }
  }

  private state(key: string, now: number): KeyState {
    let state = this.keys.get(key);
    if (!state) {
      if (this.keys.size >= SWEEP_AT) this.sweep(now);
      state = { failures: [], inFlight: 0, waiting: [] };
      this.keys.set(key, state);
    } else {
      const from = now - WINDOW_MS;
      if (state.failures.length && state.failures[0] <= from) state.failures = state.failures.filter((t) => t > from);
    }
    return state;
  }

  private sweep(now: number): void {
    for (const [key, state] of this.keys) {
      if (state.inFlight === 0 && state.waiting.length === 0 && !state.failures.some((t) => t > now - WINDOW_MS)) this.keys.delete(key);
    }
  }
}
