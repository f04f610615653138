// Test helpers: a real HTTP receiver on 127.0.0.1 (webhook and scenario targets), and polling
// for asynchronous effects.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received { method: string; url: string; headers: Record<string, string>; body: string }

export interface Receiver {
  url: string;
  received: Received[];
  /** Decides each answer (default 200 "ok"); `n` counts requests from 1. */
  respond: (req: Received, n: number) => { status: number; body?: string; delayMs?: number; contentType?: string };
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const r: Receiver = { url: '', received, respond: () => ({ status: 200, body: 'ok' }), close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
      const entry = { method: req.method ?? '', url: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      const answer = r.respond(entry, received.length);
      const send = () => { res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain' }); res.end(answer.body ?? ''); };
      if (answer.delayMs) setTimeout(send, answer.delayMs); else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
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
