// The request log on disk, so that it survives a restart: `request-log.jsonl` in the
// workspace's folder, one entry a line in the form its detail shows (headers and bodies masked
// and bounded: never a password or a token). Written once a second from the in-memory ring
// (only what came since, at most the ring's size, so the cost does not grow with the request
// rate and nothing is done on a request's path), rewritten with the ring's content when it holds
// twice the ring's size, emptied when the log is cleared, read back at start. A workspace kept
// in memory has no file.
import { appendFile, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import type { RequestLogState } from './memory.js';
import { logger } from '../../core/logger.js';
import { detailOf, existingTraffic, logLimits, trafficOf, type LogLimits, type RequestLogDetail, type StoredEntry } from './request-log.js';

export const LOG_FILE = 'request-log.jsonl';
export const FLUSH_MS = 1000;

export interface FileState { flushedSeq: number; lines: number; clears: number; writing: Promise<void> }

function fileOf(ws: Workspace): string | undefined { return ws.dir && join(ws.dir, LOG_FILE); }

/** A line of the file back into a kept entry. */
function fromLine(line: string): StoredEntry | undefined {
  try {
    const d = JSON.parse(line) as RequestLogDetail & { seq: number };
    if (typeof d.seq !== 'number' || typeof d._id !== 'string') return undefined;
    const shown: NonNullable<StoredEntry['shown']> = { headers: d.headers ?? {} };
    if (d.requestBody) shown.requestBody = d.requestBody;
    if (d.responseBody) shown.responseBody = d.responseBody;
    const hasBodies = !!(d.requestBody || d.responseBody);
    return {
      _id: d._id, seq: d.seq, method: d.method, path: d.path, status: d.status, durationMs: d.durationMs, wall: Date.parse(d.time),
      ...(d.accessRule ? { accessRule: d.accessRule } : {}), ...(d.console ? { console: true as const } : {}),
      ...(d.fault ? { fault: d.fault } : {}),
      headers: {}, body: undefined, responseText: undefined, shown,
      // The line's length stands for its bodies' (they are most of it).
      kept: hasBodies ? line.length : 0, ...(d.bodiesDropped ? { bodiesDropped: true as const } : {}),
    };
  } catch {
    return undefined; // a line cut by a crash
  }
}

function toLine(e: StoredEntry): string { return JSON.stringify({ ...detailOf(e), seq: e.seq }); }

/** Reads a workspace's file into its (new) log. */
export async function loadLogFile(state: RequestLogState, ws: Workspace, limits: LogLimits): Promise<void> {
  const file = fileOf(ws);
  const size = limits.size;
  if (!file || size <= 0) return;
  let text: string;
  try { text = await readFile(file, 'utf8'); } catch { return; }
  const t = trafficOf(state, ws, limits);
  const lines = text.split('\n').filter(Boolean);
  const entries = lines.slice(-size).map(fromLine).filter((e): e is StoredEntry => !!e).sort((a, b) => a.seq - b.seq);
  for (const e of entries) t.log.push(e);
  const maxSeq = entries.reduce((m, e) => Math.max(m, e.seq), 0);
  t.log.seq = Math.max(t.log.seq, maxSeq);
  state.files.set(ws, { flushedSeq: t.log.seq, lines: lines.length, clears: t.log.clears, writing: Promise.resolve() });
}

/** Writes what a workspace's log gained since the last write. */
export function flushLogFile(memory: RequestLogState, ws: Workspace, size: number): Promise<void> {
  const file = fileOf(ws);
  const t = existingTraffic(memory, ws);
  if (!file || !t || size <= 0) return Promise.resolve();
  let st = memory.files.get(ws);
  if (!st) { st = { flushedSeq: 0, lines: 0, clears: t.log.clears, writing: Promise.resolve() }; memory.files.set(ws, st); }
  const state = st;
  state.writing = state.writing.then(async () => {
    const cleared = state.clears !== t.log.clears;
    const fresh = t.log.since(state.flushedSeq);
    if (!cleared && fresh.length === 0) return;
    const last = fresh.length ? fresh[fresh.length - 1].seq : state.flushedSeq;
    try {
      if (cleared || state.lines + fresh.length > 2 * size) {
        // Emptied, or grown to twice the ring: rewritten with what the ring holds.
        const all = t.log.since(0);
        const tmp = `${file}.tmp`;
        await writeFile(tmp, all.map((e) => `${toLine(e)}\n`).join(''), { mode: 0o600 });
        await rename(tmp, file);
        state.lines = all.length;
      } else {
        await appendFile(file, fresh.map((e) => `${toLine(e)}\n`).join(''), { mode: 0o600 });
        state.lines += fresh.length;
      }
      state.flushedSeq = last;
      state.clears = t.log.clears;
    } catch (err) {
      // The folder is gone (workspace deleted) or not writable: the log in memory still works.
      logger.debug({ err, workspace: ws.id }, 'request log: could not write its file');
    }
  });
  return state.writing;
}

/** Loads every workspace's file as it opens, writes each second, and once more at shutdown. */
export async function startLogFiles(ctx: AppContext): Promise<void> {
  const size = ctx.config.requestLogSize;
  const limits = logLimits(ctx.config);
  const open = new Set<Workspace>();
  await ctx.registry.listen({
    opened: async (ws) => { open.add(ws); await loadLogFile(ctx.state.requestLog, ws, limits); },
    closing: async (ws) => { await flushLogFile(ctx.state.requestLog, ws, size); open.delete(ws); },
    deleted: (ws) => { open.delete(ws); },
  });
  const timer = setInterval(() => { for (const ws of open) void flushLogFile(ctx.state.requestLog, ws, size); }, FLUSH_MS);
  timer.unref();
  ctx.closers.push(async () => {
    clearInterval(timer);
    await Promise.all([...open].map((ws) => flushLogFile(ctx.state.requestLog, ws, size)));
  });
}
