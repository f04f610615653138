// Idle deadlines: a workspace made with a `ttl` (a fork a test suite may forget) is deleted once
// `ttl` seconds pass without a request to it. Every request pushes the deadline; the deadline is
// saved with the workspace (storage: a file on disk, a row on PostgreSQL) whenever it has moved
// by a tenth of the ttl, so it survives a restart: a fork whose deadline passed while the server
// was down goes at the next start. On PostgreSQL each process sees only its own requests, so a
// process re-reads the saved deadline before it deletes (the others save theirs as they go).
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import { onClockMove } from '../clock/index.js';

/** The longest `ttl` accepted: 30 days, in seconds. */
export const MAX_TTL_SECONDS = 30 * 24 * 3600;
/** The deadlines are checked at least this often (so a moved workspace clock is seen soon). */
const CHECK_EVERY_MS = 1000;

/** The moment, in ms since the epoch, that idle deadlines are measured in for a workspace: its
 *  clock (set, frozen, advanced by a test suite; the machine's time otherwise). */
export function ttlNow(ws: Workspace): number {
  return ws.now();
}

interface Saved { ttl: number; deadline: number }
export interface Expiry { ttlMs: number; deadline: number; saved: number; saving?: Promise<void> }

/** A request reached `ws`: its idle deadline (if it has one) moves to now + ttl. Cheap: one
 *  lookup for a workspace without a ttl. */
export function touchWorkspace(ctx: AppContext, ws: Workspace): void {
  const e = ctx.state.workspaces.expiries.get(ws);
  if (!e) return;
  e.deadline = ttlNow(ws) + e.ttlMs;
  if (e.deadline - e.saved > Math.max(e.ttlMs / 10, 50) && !e.saving) save(ws, e);
}

function save(ws: Workspace, e: Expiry): void {
  const deadline = e.deadline;
  e.saving = ws.writeExpiry({ ttl: e.ttlMs / 1000, deadline } satisfies Saved)
    .then(() => { e.saved = Math.max(e.saved, deadline); }, () => undefined)
    .finally(() => { e.saving = undefined; });
}

export interface Sweeper { ctx: AppContext; tracked: Set<Workspace>; timer?: NodeJS.Timeout; checking: boolean }

function sweeperOf(ctx: AppContext): Sweeper {
  let s = ctx.state.workspaces.sweeper;
  if (!s) {
    const sweeper: Sweeper = { ctx, tracked: new Set(), checking: false };
    s = sweeper;
    ctx.state.workspaces.sweeper = sweeper;
    ctx.closers.push(() => { clearTimeout(sweeper.timer); sweeper.tracked.clear(); });
  }
  return s;
}

/** Gives `ws` an idle deadline of `ttlSeconds` from now, saved at once. */
export async function trackExpiry(ctx: AppContext, ws: Workspace, ttlSeconds: number): Promise<void> {
  const ttlMs = ttlSeconds * 1000;
  const deadline = ttlNow(ws) + ttlMs;
  await ws.writeExpiry({ ttl: ttlSeconds, deadline } satisfies Saved);
  adopt(ctx, ws, { ttl: ttlSeconds, deadline });
}

function adopt(ctx: AppContext, ws: Workspace, saved: Saved): void {
  ctx.state.workspaces.expiries.set(ws, { ttlMs: saved.ttl * 1000, deadline: saved.deadline, saved: saved.deadline });
  const s = sweeperOf(ctx);
  s.tracked.add(ws);
  arm(s);
}

/** Forgets a workspace's deadline (it was deleted). */
function untrack(ctx: AppContext, ws: Workspace): void {
  ctx.state.workspaces.expiries.delete(ws);
  ctx.state.workspaces.sweeper?.tracked.delete(ws);
}

function arm(s: Sweeper): void {
  clearTimeout(s.timer);
  if (s.tracked.size === 0) return;
  let wait = CHECK_EVERY_MS;
  for (const ws of s.tracked) wait = Math.min(wait, s.ctx.state.workspaces.expiries.get(ws)!.deadline - ttlNow(ws));
  s.timer = setTimeout(() => void check(s), Math.max(0, wait));
  s.timer.unref();
}

async function check(s: Sweeper): Promise<void> {
  if (s.checking) return;
  s.checking = true;
  try {
    for (const ws of [...s.tracked]) {
      const e = s.ctx.state.workspaces.expiries.get(ws);
      if (!e || ttlNow(ws) < e.deadline) continue;
      // Another process (PostgreSQL) may have served it since: its saved deadline says so.
      const saved = await ws.readExpiry<Saved>().catch(() => undefined);
      if (saved && saved.deadline > e.deadline) { e.deadline = saved.deadline; e.saved = saved.deadline; continue; }
      if (!s.tracked.has(ws) || ttlNow(ws) < e.deadline) continue; // deleted or used meanwhile
      untrack(s.ctx, ws);
      if (s.ctx.registry.get(ws.id) === ws) await s.ctx.registry.delete(ws.id).catch(() => undefined);
    }
  } finally {
    s.checking = false;
    arm(s);
  }
}

/** Follows the workspaces' lifecycle: deadlines saved before a restart are picked up as each
 *  workspace opens; a deleted workspace is forgotten. */
export async function startExpiries(ctx: AppContext): Promise<void> {
  // A move of a workspace's clock may pass its deadline: look at once.
  onClockMove(ctx, (ws) => { const s = ctx.state.workspaces.sweeper; if (s?.tracked.has(ws)) arm(s); });
  await ctx.registry.listen({
    opened: async (ws) => {
      if (ws.inMemory) return; // nothing saved in memory
      const saved = await ws.readExpiry<Saved>().catch(() => undefined);
      if (saved && Number.isFinite(saved.deadline) && saved.ttl > 0) adopt(ctx, ws, saved);
    },
    deleted: (ws) => untrack(ctx, ws),
  });
}
