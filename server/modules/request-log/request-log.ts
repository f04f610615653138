// The per-workspace request log (a fixed-size ring buffer in memory) and the in-flight request
// count that restore and import wait on. One middleware feeds both; it sits on the hot path of
// every workspace request, so it does no I/O and awaits nothing.
import type { Request, RequestHandler, Response } from 'express';
import type { IncomingHttpHeaders } from 'node:http';
import type { AppContext } from '../context.js';
import type { RequestLogState } from './memory.js';
import { ApiError } from '../../core/errors.js';
import type { Workspace } from '../../storage/workspace.js';
import { REQUEST_LOG } from '../../core/http.js';
import type { FaultMark } from '../faults/index.js';
import { BODY_LIMIT, KEPT_REQUEST_BODY_LIMIT, showRequestBody, showResponseText, type ShownBody } from './bodies.js';

export interface RequestLogEntry {
  _id: string;
  method: string;
  /** The URL as requested, with any `token=` query parameter removed. */
  path: string;
  status: number;
  durationMs: number;
  time: string;
  /** The collection access rule that allowed or refused the request, when one decided. */
  accessRule?: string;
  /** Sent by the console itself (it marks its requests with the `X-Homebase-Console` header). */
  console?: true;
  /** Delayed or answered by a fault rule of the workspace: the rule's index, its latency and status. */
  fault?: FaultMark;
}

/** One request in detail (`GET /workspaces/{app_id}/requests/{id}`): the entry plus the
 *  request's headers, credentials hidden. */
export interface RequestLogDetail extends RequestLogEntry {
  headers: Record<string, string | string[]>;
  /** The request's JSON body and the response's, bounded and with secrets masked (bodies.ts). */
  requestBody?: ShownBody;
  responseBody?: ShownBody;
  /** The bodies were let go: the log keeps the bodies of its newest entries only, up to
   *  `requestLogBodyBytes` characters per workspace. */
  bodiesDropped?: true;
}

/** A logged request as kept: the time as a number, formatted only when the log is read, and
 *  references to the request's own headers and parsed body and to the response's JSON text (no
 *  copy on the hot path). An entry read back from disk (`shown`) holds them already masked. */
export type StoredEntry = Omit<RequestLogEntry, 'time'> & {
  seq: number; wall: number; headers: IncomingHttpHeaders; body: unknown; responseText: string | undefined;
  shown?: { headers: Record<string, string | string[]>; requestBody?: ShownBody; responseBody?: ShownBody };
  /** Characters of bodies the entry holds, counted against the log's body budget. */
  kept: number;
  /** Its bodies were let go to stay within the budget. */
  bodiesDropped?: true;
};

/** What a workspace's log keeps: `size` entries, and the bodies of the newest of them up to
 *  `bodyBytes` characters in all (the request body counted by its Content-Length, the response
 *  by its text's length). */
export interface LogLimits { size: number; bodyBytes: number }

export function logLimits(config: { requestLogSize: number; requestLogBodyBytes: number }): LogLimits {
  return { size: config.requestLogSize, bodyBytes: config.requestLogBodyBytes };
}

/** Headers whose values are credentials: shown as their scheme only (`Bearer ***`) or `***`. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

export function maskHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (!SECRET_HEADERS.has(name)) { out[name] = value; continue; }
    const first = Array.isArray(value) ? value[0] : value;
    const scheme = /^(Bearer|Basic|Digest|Token)\s/i.exec(first ?? '');
    out[name] = scheme ? `${scheme[1]} ***` : '***';
  }
  return out;
}

function publicEntry(e: StoredEntry): RequestLogEntry {
  const out: RequestLogEntry = { _id: e._id, method: e.method, path: e.path, status: e.status, durationMs: e.durationMs, time: new Date(e.wall).toISOString() };
  if (e.accessRule) out.accessRule = e.accessRule;
  if (e.console) out.console = true;
  if (e.fault) out.fault = e.fault;
  return out;
}

/** An entry in full as the detail route and the log's file show it: headers and bodies masked. */
export function detailOf(e: StoredEntry): RequestLogDetail {
  if (e.shown) return { ...publicEntry(e), ...e.shown, ...(e.bodiesDropped ? { bodiesDropped: true as const } : {}) };
  const out: RequestLogDetail = { ...publicEntry(e), headers: maskHeaders(e.headers) };
  if (e.bodiesDropped) out.bodiesDropped = true;
  const requestBody = showRequestBody(e.body, e.path);
  const responseBody = showResponseText(e.responseText, e.path);
  if (requestBody) out.requestBody = requestBody;
  if (responseBody) out.responseBody = responseBody;
  return out;
}

/** Lets go of an entry's bodies (the rest of it stays). */
function dropBodies(e: StoredEntry): void {
  if (e.kept === 0) return;
  e.body = undefined;
  e.responseText = undefined;
  if (e.shown) { delete e.shown.requestBody; delete e.shown.responseBody; }
  e.kept = 0;
  e.bodiesDropped = true;
}

export class RingBuffer {
  private items: StoredEntry[] = [];
  private next = 0;
  /** Characters of bodies held by the entries, at most `bodyBytes` once a push returns. */
  bodyChars = 0;
  /** How many of the newest entries may still hold bodies: the bodies are let go oldest first,
   *  so the entries holding some are always among the newest. */
  private withBodies = 0;
  seq = 0;
  private readonly size: number;
  private readonly bodyBytes: number;
  constructor(limits: LogLimits) { this.size = limits.size; this.bodyBytes = limits.bodyBytes; }

  push(entry: StoredEntry): void {
    if (this.size <= 0) return;
    if (this.items.length < this.size) this.items.push(entry);
    else {
      const evicted = this.items[this.next];
      this.bodyChars -= evicted.kept;
      if (this.withBodies === this.items.length) this.withBodies--;
      this.items[this.next] = entry;
    }
    this.next = (this.next + 1) % this.size;
    // A body bigger than the whole budget is not kept (nor does it push the others out).
    if (entry.kept > this.bodyBytes) dropBodies(entry);
    this.bodyChars += entry.kept;
    this.withBodies++;
    // Over the budget: the oldest entries that still hold bodies let them go.
    const n = this.items.length;
    while (this.bodyChars > this.bodyBytes && this.withBodies > 0) {
      const oldest = this.items[(this.next - this.withBodies + n) % n];
      this.bodyChars -= oldest.kept;
      dropBodies(oldest);
      this.withBodies--;
    }
  }

  /** Newest first. */
  list(): RequestLogEntry[] {
    const n = this.items.length;
    const out: RequestLogEntry[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = publicEntry(this.items[(this.next - 1 - i + n * 2) % n]);
    return out;
  }

  find(id: string): StoredEntry | undefined { return this.items.find((e) => e._id === id); }

  /** Entries with a sequence number above `seq`, oldest first (for the log's file). */
  since(seq: number): StoredEntry[] {
    const n = this.items.length;
    const out: StoredEntry[] = [];
    for (let i = 0; i < n; i++) {
      const e = this.items[(this.next + i) % n];
      if (e.seq > seq) out.push(e);
    }
    return out;
  }

  get count(): number { return this.items.length; }

  /** How many times the log was cleared (its file follows). */
  clears = 0;

  clear(): void { this.items = []; this.next = 0; this.bodyChars = 0; this.withBodies = 0; this.clears++; }
}

/** Told of each request as it is logged (the live tail), and when the log is cleared. */
export interface LogListener { logged(entry: RequestLogEntry): void; cleared(): void }

export interface WorkspaceTraffic { log: RingBuffer; inflight: number; idle: Array<() => void>; listeners: Set<LogListener> }

// Kept in the server's state (memory.ts) by the Workspace object, so two servers (or a deleted
// and re-created workspace) in one process never share a log.

/** A workspace's log, if it has one yet. */
export function existingTraffic(state: RequestLogState, ws: Workspace): WorkspaceTraffic | undefined { return state.traffic.get(ws); }

export function trafficOf(state: RequestLogState, ws: Workspace, limits: LogLimits): WorkspaceTraffic {
  let t = state.traffic.get(ws);
  if (!t) { t = { log: new RingBuffer(limits), inflight: 0, idle: [], listeners: new Set() }; state.traffic.set(ws, t); }
  return t;
}

/** Strips `token=` parameters (download links carry access tokens) from a URL. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0 || !/(?:^|[?&])token=/i.test(url.slice(q))) return url;
  const kept = url.slice(q + 1).split('&').filter((p) => !/^token=/i.test(p));
  return kept.length ? `${url.slice(0, q)}?${kept.join('&')}` : url.slice(0, q);
}

/** What the log keeps of a request while it runs; one object per request, read back by one
 *  shared listener (no closures allocated per request). */
// `responseText` is set by the JSON writer (core/http.ts writeJsonText) with the text it sends.
interface Pending { t: WorkspaceTraffic; req: Request; started: number; wall: number; counted: boolean; done: boolean; responseText: string | undefined }

const PENDING = REQUEST_LOG;

function onResponseDone(this: Response): void {
  const p = (this as Response & { [PENDING]?: Pending })[PENDING];
  if (!p || p.done) return;
  p.done = true;
  const t = p.t;
  if (p.counted && --t.inflight === 0 && t.idle.length) for (const wake of t.idle.splice(0)) wake();
  record(t, p.req, this.statusCode, p.started, p.wall, p.responseText);
}

/** The workspace API's first middleware: counts the request as in flight until its response
 *  ends, and logs it then. A request arriving while the workspace is busy is refused here (503),
 *  in the same tick as the count, so a restore never starts under a request it did not see. */
export function requestLogMiddleware(ctx: AppContext): RequestHandler {
  const limits = logLimits(ctx.config);
  return (req, res, next) => {
    const ws = ctx.registry.get((req.params as { appId?: string }).appId ?? '');
    if (!ws) return next();
    const t = trafficOf(ctx.state.requestLog, ws, limits);
    const counted = !ws.busy;
    if (counted) t.inflight++;
    (res as Response & { [PENDING]?: Pending })[PENDING] = { t, req, started: performance.now(), wall: Date.now(), counted, done: false, responseText: undefined };
    // 'close' follows every response, once: after 'finish' when it was sent, alone when the
    // client left. `on`, not `once`: no wrapper closure per request (onResponseDone runs once).
    res.on('close', onResponseDone);
    next(counted ? undefined : ApiError.unavailable());
  };
}

/** A response text kept up to this size by reference; a longer one only by a copy of its head
 *  (a slice would keep the whole string alive), so the ring holds a bounded amount. */
const KEPT_RESPONSE_TEXT = 128 * 1024;

function keptResponseText(text: string | undefined): string | undefined {
  if (text === undefined || text.length <= KEPT_RESPONSE_TEXT) return text;
  return Buffer.from(text.slice(0, BODY_LIMIT + 1)).toString();
}

function keptRequestBody(req: Request): unknown {
  const length = req.headers['content-length'];
  if (length === undefined || length === '0') return undefined;
  return Number(length) > KEPT_REQUEST_BODY_LIMIT ? undefined : req.body;
}

function record(t: WorkspaceTraffic, req: Request, status: number, started: number, wall: number, responseText: string | undefined): void {
  const seq = ++t.log.seq;
  const body = keptRequestBody(req);
  const text = keptResponseText(responseText);
  const entry: StoredEntry = {
    _id: `r${seq}`,
    seq,
    method: req.method,
    path: redactUrl(req.originalUrl),
    status,
    durationMs: Math.round((performance.now() - started) * 100) / 100,
    wall,
    accessRule: req.accessRule,
    console: req.headers['x-homebase-console'] !== undefined ? true : undefined,
    fault: req.fault,
    headers: req.headers,
    body,
    responseText: text,
    kept: (body === undefined ? 0 : Number(req.headers['content-length']) || 0) + (text?.length ?? 0),
  };
  t.log.push(entry);
  // Only a tail being watched costs anything here (one size check otherwise).
  if (t.listeners.size) {
    const shown = publicEntry(entry);
    for (const l of t.listeners) {
      try { l.logged(shown); } catch { /* a broken tail must not break the request */ }
    }
  }
}

/** The logged requests of a workspace, newest first. */
export function requestLog(ctx: AppContext, ws: Workspace): RequestLogEntry[] {
  return ctx.state.requestLog.traffic.get(ws)?.log.list() ?? [];
}

/** One logged request with its headers (credentials hidden), or undefined. */
export function requestDetail(ctx: AppContext, ws: Workspace, id: string): RequestLogDetail | undefined {
  const e = ctx.state.requestLog.traffic.get(ws)?.log.find(id);
  return e && detailOf(e);
}

export function clearRequestLog(ctx: AppContext, ws: Workspace): void {
  const t = ctx.state.requestLog.traffic.get(ws);
  if (!t) return;
  t.log.clear();
  for (const l of t.listeners) {
    try { l.cleared(); } catch { /* ignore */ }
  }
}

/** Listens to a workspace's log from now on; returns the function that stops it. */
export function watchRequestLog(ctx: AppContext, ws: Workspace, listener: LogListener): () => void {
  const t = trafficOf(ctx.state.requestLog, ws, logLimits(ctx.config));
  t.listeners.add(listener);
  return () => { t.listeners.delete(listener); };
}

/** Resolves once no admitted request of the workspace is in flight, or after `timeoutMs`
 *  (a stalled upload must not block a restore forever). */
export function waitForIdle(ctx: AppContext, ws: Workspace, timeoutMs: number): Promise<void> {
  const t = ctx.state.requestLog.traffic.get(ws);
  if (!t || t.inflight === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => { t.idle = t.idle.filter((w) => w !== wake); resolve(); }, timeoutMs);
    const wake = () => { clearTimeout(timer); resolve(); };
    t.idle.push(wake);
  });
}
