// One line per request in the terminal of `homebase serve`: method, path, status, duration.
// Attached to the HTTP server by the CLI only (startServer in a test suite prints nothing).
// Colour only on a terminal (and not with NO_COLOR); `token=` query parameters are cut, as in
// the request log, and the console's `#token=` fragment never reaches the server at all.
import type http from 'node:http';
import type { Writable } from 'node:stream';
import { redactUrl } from './modules/request-log/request-log.js';

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

/** Writes a line to `out` as each response ends (or its client goes away). */
export function logRequests(server: http.Server, out: Writable & { isTTY?: boolean }): void {
  const color = useColor(out);
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const started = performance.now();
    res.once('close', () => {
      // Express strips a mount path from req.url while it routes; originalUrl keeps the whole.
      const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/';
      out.write(formatRequestLine(req.method ?? '?', url, res.statusCode, performance.now() - started, color) + '\n');
    });
  });
}
