// The realtime API group: the WebSocket endpoint `/api/app/{app_id}/realtime` on the same HTTP
// server. Authenticates the upgrade (?token= or Authorization: Bearer), then hands frames to
// frames.ts and bus events to the hub; pings every socket and drops the silent ones.
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Request } from 'express';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AppContext, Module } from '../../core/context.js';
import { ApiError, toApiError } from '../../core/errors.js';
import { authenticateToken, bearerToken, type AuthInfo } from '../../core/auth.js';
import { loopbackHostGuard } from '../../core/http.js';
import { isLoopbackHost } from '../../config.js';
import { logger } from '../../core/logger.js';
import type { Workspace } from '../../storage/workspace.js';
import { Hub, type Client } from './hub.js';
import { checkSession, handleFrame, revalidate } from './frames.js';

const PATH = /^\/api\/app\/([^/]+)\/realtime\/?$/;
/** Client frames queued per socket before reading from it pauses. */
const MAX_PENDING_FRAMES = 32;

/** The hub of each running server (tests look at it). */
export const hubs = new WeakMap<AppContext, Hub>();

export const realtimeModule: Module = {
  name: 'realtime',
  async start(ctx) {
    const hub = new Hub(ctx.config.realtimeMaxBuffered);
    hubs.set(ctx, hub);
    const wss = new WebSocketServer({ noServer: true, maxPayload: ctx.config.jsonLimit, clientTracking: false });
    const hostGuard = isLoopbackHost(ctx.config.host) ? loopbackHostGuard() : undefined;
    let stopping = false;

    const reject = (socket: Duplex, err: ApiError) => {
      const body = JSON.stringify(err.toBody());
      socket.end(`HTTP/1.1 ${err.status} ${STATUS_CODES[err.status]}\r\nContent-Type: application/json\r\n`
        + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    };

    const accept = async (req: IncomingMessage, socket: Duplex, head: Buffer, appId: string, url: URL) => {
      if (stopping) throw ApiError.unavailable('The server is shutting down');
      hostGuard?.(req as Request, undefined as never, (err?: unknown) => { if (err) throw err; });
      const ws = ctx.registry.require(appId);
      ws.assertAvailable();
      const token = url.searchParams.get('token') ?? bearerToken(req as Request);
      const auth = token ? await authenticateToken(ws, token) : null;
      if (stopping || ctx.registry.get(appId) !== ws) throw ApiError.notFound('Workspace', appId);
      wss.handleUpgrade(req, socket, head, (socket) => connect(ws, auth, socket));
    };

    const connect = (ws: Workspace, auth: AuthInfo | null, socket: WebSocket) => {
      const client: Client = { socket, ws, auth, topics: new Set(), alive: true, closed: false, pending: 0, queue: Promise.resolve() };
      hub.add(client);
      socket.on('pong', () => { client.alive = true; });
      socket.on('error', () => undefined); // a close follows
      socket.on('close', () => { client.closed = true; hub.remove(client); });
      socket.on('message', (data, isBinary) => {
        // Frames are handled one after another (a subscribe is acknowledged before the next
        // frame runs); reading pauses while too many wait, so a flood cannot queue up memory.
        if (++client.pending >= MAX_PENDING_FRAMES) socket.pause();
        const text = isBinary ? '' : data.toString();
        client.queue = client.queue
          .then(() => handleFrame(ctx, hub, client, text))
          .catch((err) => logger.error({ err }, 'realtime frame failed'))
          .finally(() => { if (--client.pending < MAX_PENDING_FRAMES) socket.resume(); });
      });
    };

    ctx.upgradeHandlers.push((req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const m = PATH.exec(url.pathname);
      if (!m) return false;
      socket.on('error', () => socket.destroy());
      let appId: string;
      try { appId = decodeURIComponent(m[1]); } catch { reject(socket, ApiError.notFound('Workspace')); return true; }
      accept(req, socket, head, appId, url).catch((err) => reject(socket, toApiError(err)));
      return true;
    });

    const unsubscribeBus = ctx.bus.subscribe((event) => {
      hub.dispatch(event);
      if (event.type === 'user.updated') {
        const userId = (event.data as { _id?: string })._id;
        for (const c of hub.clientsOf(event.app)) if (c.auth?.userId === userId) void revalidate(hub, c);
      }
    });

    // Heartbeat: a socket that did not answer the previous ping is gone; live ones get their
    // session re-checked, so a logout ends its sockets within one interval.
    const heartbeat = setInterval(() => {
      for (const c of hub.all()) {
        if (!c.alive) { c.closed = true; hub.remove(c); c.socket.terminate(); continue; }
        c.alive = false;
        try { c.socket.ping(); } catch { /* closing */ }
        void checkSession(c).then((ok) => { if (!ok) hub.close(c, 1008, 'Session ended; sign in again'); }, () => undefined);
      }
    }, ctx.config.realtimePingInterval);
    heartbeat.unref();

    const closeAll = async (clients: Client[], code: number, reason: string) => {
      const done = clients.map((c) => new Promise<void>((resolve) => {
        if (c.socket.readyState === c.socket.CLOSED) return resolve();
        c.socket.once('close', () => resolve());
        hub.close(c, code, reason);
        setTimeout(() => { c.socket.terminate(); resolve(); }, 1000).unref();
      }));
      await Promise.all(done);
    };

    await ctx.registry.listen({
      closing: (ws) => closeAll(hub.clientsOf(ws.id), 1001, 'Workspace closed'),
      replaced: async (ws) => { await Promise.all(hub.clientsOf(ws.id).map((c) => revalidate(hub, c))); },
    });

    ctx.closers.push(async () => {
      stopping = true;
      clearInterval(heartbeat);
      unsubscribeBus();
      await closeAll(hub.all(), 1001, 'Server shutting down');
      wss.close();
    });
  },
};
