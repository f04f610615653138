// Test helper for the realtime suites: a `ws` client that buffers the frames it receives and
// lets a test wait for the next one matching a predicate.
import WebSocket, { type ClientOptions } from 'ws';

export type Frame = Record<string, any>;

export class TestSocket {
  readonly frames: Frame[] = [];
  closed?: { code: number; reason: string };
  private waiters: Array<{ match: (f: Frame) => boolean; resolve: (f: Frame) => void }> = [];
  private closeWaiters: Array<(c: { code: number; reason: string }) => void> = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as Frame;
      const i = this.waiters.findIndex((w) => w.match(frame));
      if (i >= 0) this.waiters.splice(i, 1)[0].resolve(frame);
      else this.frames.push(frame);
    });
    socket.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      for (const w of this.closeWaiters.splice(0)) w(this.closed);
    });
    socket.on('error', () => undefined);
  }

  /** Opens a socket to `/api/app/{app}/realtime`; rejects with the HTTP status (and the
   *  response's headers, raw text and parsed body) if refused. */
  static open(url: string, options: ClientOptions = {}): Promise<TestSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, options);
      const client = new TestSocket(socket);
      socket.once('open', () => resolve(client));
      socket.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c) => { body += c; });
        res.on('end', () => reject(Object.assign(new Error(`refused: ${res.statusCode}`), {
          status: res.statusCode, headers: res.headers, text: body, body: body ? JSON.parse(body) : undefined,
        })));
      });
      socket.once('error', reject);
    });
  }

  send(frame: unknown): void { this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame)); }

  /** The next frame (already received or to come) that matches. */
  next(match: (f: Frame) => boolean = () => true, timeoutMs = 5000): Promise<Frame> {
    const i = this.frames.findIndex(match);
    if (i >= 0) return Promise.resolve(this.frames.splice(i, 1)[0]);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames)}`)), timeoutMs);
      this.waiters.push({ match, resolve: (f) => { clearTimeout(timer); resolve(f); } });
    });
  }

  /** Sends a frame and waits for the reply of the given type. */
  async request(frame: Frame, replyType?: string): Promise<Frame> {
    this.send(frame);
    return this.next((f) => (replyType ? f.type === replyType : f.type !== 'event'));
  }

  async subscribe(topic: string): Promise<Frame> {
    this.send({ type: 'subscribe', topic });
    return this.next((f) => (f.type === 'subscribed' || f.type === 'error') && f.topic === topic);
  }

  waitClose(timeoutMs = 10_000): Promise<{ code: number; reason: string }> {
    if (this.closed) return Promise.resolve(this.closed);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('socket not closed in time')), timeoutMs);
      this.closeWaiters.push((c) => { clearTimeout(timer); resolve(c); });
    });
  }

  close(): void { this.socket.close(); }
}

export function realtimeUrl(api: string, token?: string | null): string {
  const base = api.replace(/^http/, 'ws') + '/realtime';
  return token ? `${base}?token=${encodeURIComponent(token)}` : base;
}
