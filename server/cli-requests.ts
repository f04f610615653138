// One line per request in the terminal of `homebase serve`: method, path, status, duration.
// Attached to the HTTP server by the CLI only (startServer in a test suite prints nothing).
// Colour only on a terminal (and not with NO_COLOR); `token=` query parameters are cut, as in
// the request log, and the console's `#token=` fragment never reaches the server at all.
import type http from 'node:http';
import type { Writable } from 'node:stream';
import { redactUrl } from './modules/request-log/index.js';

const COLORS = { reset: '\x1b[0m', dim: '\x1b[2m', green: '\x1b[32m', cyan: '\x1b[36m', yellow: '\x1b[33m', red: '\x1b[31m' };

export function useColor(out: Writable & { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return !!out.isTTY && env.NO_COLOR === undefined && env.TERM !== 'dumb';
}

export function formatRequestLine(method: string, url: string, status: number, ms: number, color: boolean): string {
  const path = redactUrl(url);
  const time = ms < 10 ? ms.toFixed(1) : Math.round(ms).toString();
  if (!color) return `${method} ${path} ${status} ${time} ms`;
  const c = status >= 500 ? COLORS.red : status >= 400 ? COLORS.yellow : status >= 300 ? COLORS.cyan : COLORS.green;
  return `${COLORS.dim}${method}${COLORS.reset} ${path} ${c}${status}${COLORS.reset} ${COLORS.dim}${time} ms${COLORS.reset}`;
}

const STARTED = Symbol('requestStarted');
type Timed = http.ServerResponse & { [STARTED]?: number };

/** How long a line may wait for others to share its write (ms), and how much text forces one. */
const FLUSH_MS = 20;
const FLUSH_CHARS = 16 * 1024;

/** Writes a line to `out` as each response ends (or its client goes away). Lines wait up to
 *  FLUSH_MS (or until 16 K characters) for others and go out in one write, in order, and at
 *  exit: a write per request to a pipe or terminal was a system call on every request, 6 % of a
 *  record GET's CPU and 12 % of an update's, and one per event-loop turn still a few per cent
 *  under load (docs/performance-history.md, changes 14 and 17). */
export function logRequests(server: http.Server, out: Writable & { isTTY?: boolean }): void {
  const color = useColor(out);
  let lines = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) { clearTimeout(timer); timer = undefined; }
    if (!lines) return;
    const text = lines;
    lines = '';
    out.write(text);
  };
  function onClose(this: Timed): void {
    const req = this.req as http.IncomingMessage & { originalUrl?: string };
    // Express strips a mount path from req.url while it routes; originalUrl keeps the whole.
    const url = req.originalUrl ?? req.url ?? '/';
    lines += formatRequestLine(req.method ?? '?', url, this.statusCode, performance.now() - (this[STARTED] ?? 0), color) + '\n';
    if (lines.length >= FLUSH_CHARS) flush();
    else if (!timer) { timer = setTimeout(flush, FLUSH_MS); timer.unref(); }
  }
  // First among the listeners: the app changes the response's prototype, and a property added
  // after that costs a new hidden class per request (express/request-shape.ts).
  server.prependListener('request', (_req: http.IncomingMessage, res: Timed) => {
    res[STARTED] = performance.now();
    // 'close' comes once per response: `on`, with one shared listener, allocates nothing per request.
    res.on('close', onClose);
  });
  process.on('exit', flush);
}
