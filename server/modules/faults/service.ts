// A workspace's injected faults: the rules a test suite sets (`PUT .../faults`), kept with the
// workspace's settings (so every process on a shared database applies them), and the decisions
// taken from them: does this request wait, get an error status, does this socket drop, does
// this webhook delivery fail. The counters (`times`) and the seeded random sequences (`rate`)
// live in each process and start again with every PUT.
import { randomInt, randomUUID } from 'node:crypto';
import picomatch from 'picomatch';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import type { Workspace } from '../../storage/workspace.js';
import type { AppContext } from '../context.js';
import type { FaultRule, StoredFaults } from './schemas.js';

/** What processes on one database tell each other when a workspace's faults were set. */
export const FAULTS_TOPIC = 'faults';

/** What a request answered or delayed by a fault carries into the request log. */
export interface FaultMark { rule: number; latencyMs?: number; status?: number }

interface LiveRule {
  index: number;
  rule: FaultRule;
  kind: 'api' | 'realtime' | 'webhook';
  matchesPath?: (path: string) => boolean;
  used: number;
  /** The rule's own seeded sequence, so that its draws do not depend on other rules' traffic. */
  rng: ReturnType<typeof xoroshiro128plus>;
}

export interface Live { version: string; rules: LiveRule[] }

/** The stored faults of a workspace, or undefined. */
export function storedFaults(ws: Workspace): StoredFaults | undefined {
  return ws.settings.data.faults as StoredFaults | undefined;
}

/** The live state of the current rules (made afresh when the rules were set again). */
function liveOf(ctx: AppContext, ws: Workspace): Live | undefined {
  const { live } = ctx.state.faults;
  const stored = storedFaults(ws);
  if (!stored) return undefined;
  let state = live.get(ws);
  if (!state || state.version !== stored.version) {
    state = {
      version: stored.version,
      rules: stored.rules.map((rule, index) => ({
        index, rule, used: 0,
        kind: rule.match.realtime ? 'realtime' : rule.match.webhook ? 'webhook' : 'api',
        // `dot`: a path segment may start with a dot; the glob is matched against the whole path.
        matchesPath: rule.match.path === undefined ? undefined : picomatch(rule.match.path, { dot: true }),
        rng: xoroshiro128plus((stored.seed + Math.imul(index + 1, 0x9e3779b1)) | 0),
      })),
    };
    live.set(ws, state);
  }
  return state;
}

/** Whether a rule that matched applies this time: within its `times`, and drawn within its
 *  `rate` (a draw is taken only while `times` is not used up). */
function fires(r: LiveRule): boolean {
  if (r.rule.times !== undefined && r.used >= r.rule.times) return false;
  if (r.rule.rate !== undefined && !(uniformFloat64(r.rng) < r.rule.rate)) return false;
  r.used++;
  return true;
}

/** The fault for a workspace-API request (`path` is the workspace path, without the query), if
 *  one applies: the first rule, in order, that matches and fires. */
export function requestFault(ctx: AppContext, ws: Workspace, method: string, path: string): { mark: FaultMark; rule: FaultRule } | undefined {
  const state = liveOf(ctx, ws);
  if (!state) return undefined;
  for (const r of state.rules) {
    if (r.kind !== 'api') continue;
    if (r.rule.match.method !== undefined && r.rule.match.method !== method) continue;
    if (r.matchesPath && !r.matchesPath(path)) continue;
    if (!fires(r)) continue;
    const mark: FaultMark = { rule: r.index };
    if (r.rule.latencyMs !== undefined) mark.latencyMs = r.rule.latencyMs;
    if (r.rule.status !== undefined) mark.status = r.rule.status;
    return { mark, rule: r.rule };
  }
  return undefined;
}

/** Does a realtime rule drop a socket that has just opened? */
export function dropsNewSocket(ctx: AppContext, ws: Workspace): boolean {
  const state = liveOf(ctx, ws);
  return !!state?.rules.some((r) => r.kind === 'realtime' && fires(r));
}

/** Is there a realtime rule at all (the open sockets are dropped when it is set)? */
export function hasRealtimeRule(ws: Workspace): boolean {
  return !!storedFaults(ws)?.rules.some((r) => r.match.realtime);
}

/** The status a webhook delivery fails with, if a webhook rule applies to it. */
export function webhookFault(ctx: AppContext, ws: Workspace): { rule: number; status: number } | undefined {
  const state = liveOf(ctx, ws);
  if (!state) return undefined;
  for (const r of state.rules) if (r.kind === 'webhook' && fires(r)) return { rule: r.index, status: r.rule.status! };
  return undefined;
}

/** Sets the rules (a new version: counters and sequences start again). */
export async function putFaults(ws: Workspace, input: { seed?: number; rules: FaultRule[] }): Promise<StoredFaults> {
  const stored: StoredFaults = { version: randomUUID(), seed: input.seed ?? randomInt(0, 2 ** 31 - 1), rules: input.rules };
  await ws.settings.update((s) => { s.faults = stored; });
  return stored;
}

export async function clearFaults(ws: Workspace): Promise<void> {
  if (storedFaults(ws) === undefined) return;
  await ws.settings.update((s) => { delete s.faults; });
}

/** What GET answers: the rules, the seed, and how many times each rule has applied in this process. */
export function viewFaults(ctx: AppContext, ws: Workspace): { seed: number | null; rules: Array<FaultRule & { applied: number }> } {
  const stored = storedFaults(ws);
  if (!stored) return { seed: null, rules: [] };
  const state = liveOf(ctx, ws)!;
  return { seed: stored.seed, rules: stored.rules.map((rule, i) => ({ ...rule, applied: state.rules[i].used })) };
}
