// One request run through the app in this process, without a socket (a batch's operations):
// the same pipeline, routes, request log and errors as a request from the network, in the async
// context of the caller (so that a write group and held events follow it).
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

export interface Injected { status: number; headers: Record<string, unknown>; text: string }

export interface InjectOptions {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  remoteAddress?: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Requests made by `inject`. Not server state: a mark on requests, gone with them. */
export const injectedRequests = new WeakSet<IncomingMessage>();

export function inject(handler: Handler, o: InjectOptions): Promise<Injected> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    Object.defineProperty(socket, 'remoteAddress', { value: o.remoteAddress ?? '127.0.0.1' });
    const req = new IncomingMessage(socket);
    injectedRequests.add(req);
    req.method = o.method;
    req.url = o.url;
    req.httpVersion = '1.1';
    req.httpVersionMajor = 1;
    req.httpVersionMinor = 1;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.headers)) headers[k.toLowerCase()] = v;
    const payload = o.body === undefined ? undefined : Buffer.from(JSON.stringify(o.body));
    if (payload) { headers['content-type'] = 'application/json'; headers['content-length'] = String(payload.length); }
    req.headers = headers;
    if (payload) req.push(payload);
    req.push(null);

    const res = new ServerResponse(req);
    const chunks: Buffer[] = [];
    let done = false;
    const add = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), typeof encoding === 'string' ? encoding as BufferEncoding : 'utf8'));
    };
    res.write = ((chunk: unknown, encoding?: unknown) => { add(chunk, encoding); return true; }) as ServerResponse['write'];
    res.end = ((chunk?: unknown, encoding?: unknown) => {
      if (done) return res;
      done = true;
      add(chunk, encoding);
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ status: res.statusCode, headers: res.getHeaders(), text });
      res.emit('finish');
      res.emit('close');
      return res;
    }) as ServerResponse['end'];
    try {
      handler(req, res);
    } catch (err) {
      reject(err);
    }
  });
}
