// Test helpers: a real HTTP receiver on 127.0.0.1 (webhook and scenario targets), and polling
// for asynchronous effects.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestServer } from './harness.js';

export interface Received { method: string; url: string; headers: Record<string, string>; body: string }

export interface Answer {
  status: number;
  body?: string;
  /** Answer after this many ms (the answer is dropped if the receiver closes first). */
  delayMs?: number;
  contentType?: string;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Decides each answer (default 200 "ok"); `n` counts requests from 1. */
  respond: (req: Received, n: number) => Answer;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** Port to listen on (default: any free one); a taken port rejects with EADDRINUSE. */
  port?: number;
  /** Serve HTTPS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
}

export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const received: Received[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const r: Receiver = { url: '', port: 0, received, respond: () => ({ status: 200, body: 'ok' }), close: async () => undefined };
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
      const entry = { method: req.method ?? '', url: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      const answer = r.respond(entry, received.length);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain', ...(answer.headers ?? {}) });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) {
        const timer = setTimeout(() => { timers.delete(timer); send(); }, answer.delayMs);
        timers.add(timer);
      } else send();
    });
  };
  const server = options.tls ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler) : http.createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => { server.off('error', reject); resolve(); });
  });
  r.port = (server.address() as AddressInfo).port;
  r.url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${r.port}`;
  r.close = () => new Promise<void>((resolve) => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return r;
}

/** Polls until `check` returns a truthy value (or throws after `timeoutMs`). */
export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 5000, what = 'condition'): Promise<Truthy<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as Truthy<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Between two tests of a webhooks or scenarios suite: the receiver answers 200 again and forgets
 *  what it got, and every webhook (or scenario) of the workspace is deleted. */
export async function clearBetweenTests(t: TestServer, rx: Receiver, what: 'webhooks' | 'scenarios'): Promise<void> {
  rx.respond = () => ({ status: 200, body: 'ok' });
  const all = await t.req('GET', `/${what}?limit=100`);
  for (const item of all.body.data) await t.req('DELETE', `/${what}/${item._id}`);
  rx.received.length = 0;
}
