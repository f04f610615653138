// The outgoing HTTP client of webhook deliveries and scenario `http` steps, on node:http and
// node:https rather than fetch: fetch refuses the ports browsers block (6000, 6665-6669,
// 10080, ...), and a developer's app may well listen on one of them. One request, no redirect
// followed, a deadline over the whole exchange (connection, answer and body), and only the
// first `limit` bytes of the body read.
import http from 'node:http';
import https from 'node:https';

export interface OutgoingRequest {
  method: string;
  url: string;
  /** Header names in lower case. `content-length` is computed here. */
  headers: Record<string, string>;
  body?: string;
  /** Deadline of the whole exchange, in ms. */
  timeoutMs: number;
  /** Bytes of the response body kept; the rest is not read. */
  limit: number;
  signal?: AbortSignal;
}

export interface IncomingAnswer {
  status: number;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The first `limit` bytes of the body, as UTF-8 text. */
  body: string;
}

/** The deadline passed before the exchange ended. */
export class HttpTimeout extends Error {
  constructor(readonly timeoutMs: number) { super(`Timed out after ${timeoutMs} ms`); }
}

// No keep-alive: every attempt gets a fresh connection, so a receiver that dropped an idle
// socket never turns into a spurious "socket hang up".
const agents = { 'http:': new http.Agent({ keepAlive: false }), 'https:': new https.Agent({ keepAlive: false }) };

/** Sends one request; resolves with the answer (whatever its status), rejects on a connection
 *  error, an invalid URL or header, the deadline (`HttpTimeout`) or an abort (the signal's reason). */
export function sendRequest(req: OutgoingRequest): Promise<IncomingAnswer> {
  return new Promise<IncomingAnswer>((resolve, reject) => {
    let settled = false;
    let request: http.ClientRequest | undefined;
    const settle = (err: unknown, answer?: IncomingAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      if (err) { reject(err); request?.destroy(); } else resolve(answer!);
    };
    const timer = setTimeout(() => settle(new HttpTimeout(req.timeoutMs)), req.timeoutMs);
    const onAbort = () => settle(req.signal!.reason ?? new Error('Aborted'));
    if (req.signal?.aborted) { onAbort(); return; }
    req.signal?.addEventListener('abort', onAbort, { once: true });

    try {
      const url = new URL(req.url);
      const agent = agents[url.protocol as keyof typeof agents];
      if (!agent) throw new Error(`Unsupported protocol ${url.protocol}`);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        const name = k.toLowerCase();
        if (name !== 'content-length' && name !== 'transfer-encoding') headers[name] = v;
      }
      if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
      const client = url.protocol === 'https:' ? https : http;
      request = client.request(url, { method: req.method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => settle(undefined, {
          status: res.statusCode ?? 0, headers: headerRecord(res.rawHeaders),
          body: Buffer.concat(chunks).subarray(0, req.limit).toString('utf8'),
        });
        res.on('data', (chunk: Buffer) => {
          if (size >= req.limit) return;
          chunks.push(chunk);
          size += chunk.length;
          if (size >= req.limit) { done(); res.destroy(); }
        });
        res.on('end', done);
        res.on('error', (err) => settle(err));
        res.on('close', () => { if (!res.complete) settle(new Error('The connection closed before the answer was complete')); else done(); });
      });
      request.on('error', (err) => settle(err));
      request.end(req.body);
    } catch (err) {
      settle(err);
    }
  });
}

/** Response headers from the raw list: names in lower case, repeats joined with `, `. */
function headerRecord(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    const value = raw[i + 1];
    if (Object.prototype.hasOwnProperty.call(out, name)) out[name] += `, ${value}`;
    else Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A short reason for a failed request: `connect ECONNREFUSED 127.0.0.1:3000`, `Timed out after 10000 ms`, ... */
export function describeRequestError(err: unknown): string {
  const e = err as { message?: string; code?: string; cause?: { code?: string; message?: string } };
  if (e?.message) return e.message;
  if (e?.code) return e.code;
  if (e?.cause?.message) return e.cause.message;
  return typeof err === 'string' ? err : 'Request failed';
}
