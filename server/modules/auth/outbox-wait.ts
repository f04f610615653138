// Reading the outbox from a test: the links and codes found in each email, and a long poll that
// answers as soon as an email to an address is there (GET /workspaces/{id}/outbox?to=&wait=).
import type { Request } from 'express';
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import type { QueryResult, StoreQuery } from '../../storage/query.js';
import { ApiError } from '../../core/errors.js';
import { normalizeEmail } from '../users/index.js';
import { outboxStore, onEmail } from './outbox.js';
import { authOf } from './memory.js';

/** The longest `wait` accepted, in ms; a larger one is a 400 naming `wait`. */
export const MAX_OUTBOX_WAIT_MS = 30_000;
/** On PostgreSQL another process may write the email: the store is read again this often. */
const RECHECK_MS = 250;

/** `wait` in ms (undefined when absent); 400 naming it when it is not an integer 0..30000. */
export function parseWait(raw: unknown): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const text = typeof raw === 'string' ? raw : '';
  if (!/^\d+$/.test(text)) throw ApiError.badRequest(`'wait' must be a whole number of milliseconds from 0 to ${MAX_OUTBOX_WAIT_MS}`, { field: 'wait' });
  const ms = Number(text);
  if (ms > MAX_OUTBOX_WAIT_MS) throw ApiError.badRequest(`'wait' may be at most ${MAX_OUTBOX_WAIT_MS} ms (30 s); ask again to wait longer`, { field: 'wait', max: MAX_OUTBOX_WAIT_MS });
  return ms;
}

/** `to` as stored (emails are kept trimmed and lower-case); 400 naming it when repeated. */
export function parseTo(raw: unknown): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string') throw ApiError.badRequest("'to' must be given once", { field: 'to' });
  return normalizeEmail(raw);
}

const LINK = /\bhttps?:\/\/[^\s<>"'`)\]]+/g;
/** Prefixed tokens such as `hbp_...` (reset codes) and, on a line that speaks of a code, a
 *  number of 4 to 8 digits. */
const TOKEN = /\b[a-z]{2,8}_[A-Za-z0-9_-]{16,}/g;
const DIGITS = /\b\d{4,8}\b/g;

/** The links and codes found in an email's subject, text and html, each once, in order. */
export function linksAndCodes(email: Record<string, unknown>): { links: string[]; codes: string[] } {
  const links = new Set<string>();
  const codes = new Set<string>();
  for (const part of [email.subject, email.text, email.html]) {
    if (typeof part !== 'string') continue;
    for (const m of part.match(LINK) ?? []) links.add(m.replace(/[.,;:!?]+$/, ''));
    for (const line of part.split('\n')) {
      const withoutLinks = line.replace(LINK, ' ');
      for (const m of withoutLinks.match(TOKEN) ?? []) codes.add(m);
      if (/code|otp|pin/i.test(withoutLinks)) for (const m of withoutLinks.match(DIGITS) ?? []) codes.add(m);
    }
  }
  return { links: [...links], codes: [...codes] };
}

/** The page of the outbox `q` asks for; with `wait`, when it is empty, waits up to `wait` ms for
 *  an email that fills it (one written meanwhile, in this process or, on PostgreSQL, another),
 *  then answers what there is (possibly nothing). Ends early when the client goes or the
 *  server stops. */
export async function findOrWait(ctx: AppContext, ws: Workspace, q: StoreQuery, wait: number | undefined, req: Request): Promise<QueryResult> {
  const store = await outboxStore(ws);
  let result = await store.find(q);
  if (!wait || result.total > 0) return result;
  const until = Date.now() + wait;
  let gone = false;
  const onClose = () => { gone = true; wake?.(); };
  let wake: (() => void) | undefined;
  req.on('close', onClose);
  const state = ctx.state.auth;
  const mine = authOf(state, ws);
  const waking = state.outboxWaking;
  mine.waiting++;
  try {
    while (result.total === 0 && !gone && Date.now() < until && !state.stopping) {
      await new Promise<void>((resolve) => {
        const left = until - Date.now();
        const timer = setTimeout(done, ws.processes.shared ? Math.min(left, RECHECK_MS) : left);
        const off = onEmail(ctx, ws, done);
        waking.add(done);
        wake = done;
        function done() { clearTimeout(timer); off(); waking.delete(done); resolve(); }
      });
      if (!gone) result = await store.find(q);
    }
    return result;
  } finally {
    mine.waiting--;
    req.off('close', onClose);
  }
}

/** How many outbox waits are pending on `ws` in this server (tests wait for theirs to start). */
export function pendingWaits(ctx: AppContext, ws: Workspace): number { return ctx.state.auth.workspaces.get(ws)?.waiting ?? 0; }

/** At shutdown, pending waits answer at once (the server does not wait 30 s for them). */
export function stopWaits(ctx: AppContext): void {
  const state = ctx.state.auth;
  ctx.closers.push(() => { state.stopping = true; for (const w of [...state.outboxWaking]) w(); });
}
