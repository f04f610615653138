// The realtime API group: the WebSocket endpoint `/api/app/{app_id}/realtime` on the same HTTP
// server. Authenticates the upgrade (?token= or Authorization: Bearer), then hands frames to
// frames.ts and bus events to the hub; pings every socket and drops the silent ones.
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Request } from 'express';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AppContext, Module, UpgradeHandler } from '../context.js';
import { ApiError, publicError } from '../../core/errors.js';
import { type AuthInfo } from '../caller.js';
import { authenticateToken, bearerToken } from '../auth/index.js';
import { loopbackHostGuard } from '../../core/http.js';
import { isLoopbackHost } from '../../core/config.js';
import { logger } from '../../core/logger.js';
import type { Workspace } from '../../storage/workspace.js';
import { Hub, type Client } from './hub.js';
import { dropsNewSocket } from '../faults/index.js';
import { checkSession, handleFrame, revalidate } from './frames.js';
import { endsSession, onSessionsEnded, SESSION_END_TOPIC, type SessionEnd } from '../auth/index.js';
import { socketCapError, principalOf } from './socket-cap.js';

const PATH = /^\/api\/app\/([^/]+)\/realtime\/?$/;
/** Client frames queued per socket before reading from it pauses. */
const MAX_PENDING_FRAMES = 32;

/** Ends a socket as a lost connection would: no close frame (the client sees 1006). */
function drop(hub: Hub, client: Client): void {
  client.closed = true;
  hub.remove(client);
  client.socket.terminate();
}

/** Drops every open socket of a workspace (a realtime fault rule was set). */
export function dropSockets(ctx: AppContext, ws: Workspace): void {
  const hub = ctx.state.realtime.hub;
  if (!hub) return;
  for (const c of hub.clientsOf(ws.id)) if (c.ws === ws) drop(hub, c);
}

/** Refuses an upgrade request with a complete HTTP response, as the API answers errors: the
 *  contract's error body, its Content-Type and Content-Length, nosniff, the error's own headers
 *  (Retry-After of a 503), and Connection: close. */
export function rejectUpgrade(socket: Duplex, thrown: unknown): void {
  const err = publicError(thrown, {}, 'realtime upgrade failed');
  const body = JSON.stringify(err.toBody());
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Content-Type-Options': 'nosniff',
    Date: new Date().toUTCString(),
    ...(err.headers ?? {}),
    Connection: 'close',
  };
  if (!socket.writable) { socket.destroy(); return; }
  socket.end(`HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}\r\n`
    + Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') + `\r\n${body}`);
}

export const realtimeModule: Module = {
  name: 'realtime',
  async start(ctx) {
    const hub = new Hub(ctx.config.realtimeMaxBuffered, (id) => ctx.registry.get(id));
    ctx.state.realtime.hub = hub;
    const wss = new WebSocketServer({ noServer: true, maxPayload: ctx.config.jsonLimit, clientTracking: false });
    const hostGuard = isLoopbackHost(ctx.config.host) ? loopbackHostGuard() : undefined;
    let stopping = false;

    const guardHost = (req: IncomingMessage) => {
      hostGuard?.(req as Request, undefined as never, (err?: unknown) => { if (err) throw err; });
    };

    const accept = async (req: IncomingMessage, socket: Duplex, head: Buffer, appId: string, url: URL) => {
      if (stopping) throw ApiError.unavailable('The server is shutting down');
      guardHost(req);
      const ws = ctx.registry.require(appId);
      ws.assertAvailable();
      const token = url.searchParams.get('token') ?? bearerToken(req as Request);
      const auth = token ? await authenticateToken(ws, token) : null;
      if (stopping || ctx.registry.get(appId) !== ws) throw ApiError.notFound('Workspace', appId);
      // The bound on sockets per principal: the check and the socket's registration run in one
      // turn (the upgrade completes synchronously), so parallel upgrades cannot overshoot it.
      const principal = principalOf(auth, req);
      const max = ctx.config.realtimeMaxSockets;
      if (max > 0 && hub.countOf(ws.id, principal) >= max) throw socketCapError(max, !!auth);
      const lastEventId = url.searchParams.get('lastEventId') || undefined;
      wss.handleUpgrade(req, socket, head, (socket) => connect(ws, auth, socket, principal, lastEventId));
    };

    const connect = (ws: Workspace, auth: AuthInfo | null, socket: WebSocket, principal: string, lastEventId?: string) => {
      const client: Client = { socket, ws, auth, principal, ...(lastEventId ? { lastEventId } : {}), topics: new Set(), alive: true, closed: false, pending: 0, queue: Promise.resolve() };
      hub.add(client);
      socket.on('pong', () => { client.alive = true; });
      socket.on('error', () => undefined); // a close follows
      socket.on('close', () => { client.closed = true; hub.remove(client); });
      // A realtime fault rule of the workspace (a test suite's) drops the new socket at once.
      if (dropsNewSocket(ctx, ws)) { drop(hub, client); return; }
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

    const handler: UpgradeHandler = (req, socket, head) => {
      socket.on('error', () => socket.destroy());
      let url: URL;
      try { url = new URL(req.url ?? '/', 'http://localhost'); } catch { rejectUpgrade(socket, ApiError.badRequest('Malformed request target')); return true; }
      const m = PATH.exec(url.pathname);
      if (!m) {
        // Another path: handlers registered after this one may take it; if none does, the
        // refusal is a proper HTTP answer in the contract's shape rather than a bare 404.
        const later = ctx.upgradeHandlers.slice(ctx.upgradeHandlers.indexOf(handler) + 1);
        if (later.some((h) => h(req, socket, head))) return true;
        try {
          guardHost(req);
          rejectUpgrade(socket, new ApiError('NOT_FOUND', `No route for ${req.method ?? 'GET'} ${url.pathname}`));
        } catch (err) {
          rejectUpgrade(socket, err);
        }
        return true;
      }
      let appId: string;
      try { appId = decodeURIComponent(m[1]); } catch { rejectUpgrade(socket, ApiError.notFound('Workspace')); return true; }
      accept(req, socket, head, appId, url).catch((err) => rejectUpgrade(socket, err));
      return true;
    };
    ctx.upgradeHandlers.push(handler);

    const unsubscribeBus = ctx.bus.subscribe((event) => {
      hub.dispatch(event);
      if (event.type === 'user.updated') {
        const userId = (event.data as { _id?: string })._id;
        for (const c of hub.clientsOf(event.app)) if (c.auth?.userId === userId) void revalidate(hub, c);
      }
    });

    // A session that ends closes its sockets at once (before the call that ended it answers, in
    // this process; as soon as the relay brings the news, in the others on the same database).
    const endSessions = (wsId: string, end: SessionEnd, same?: Workspace) => {
      for (const c of hub.clientsOf(wsId)) {
        if ((!same || c.ws === same) && c.auth && endsSession(end, c.auth)) hub.close(c, 1008, 'Session ended; sign in again');
      }
    };
    const unsubscribeEnds = onSessionsEnded(ctx, (ws, end) => endSessions(ws.id, end, ws));
    // From another process; without data, messages may have been missed: every socket is re-checked.
    ctx.registry.processes.hear(SESSION_END_TOPIC, async (ws, data) => {
      if (data) return endSessions(ws.id, data as SessionEnd);
      await Promise.all(hub.clientsOf(ws.id).map((c) => revalidate(hub, c)));
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
      closing: (ws) => { hub.forget(ws.id); return closeAll(hub.clientsOf(ws.id), 1001, 'Workspace closed'); },
      replaced: async (ws) => { hub.forget(ws.id); await Promise.all(hub.clientsOf(ws.id).map((c) => revalidate(hub, c))); },
    });

    ctx.closers.push(async () => {
      stopping = true;
      clearInterval(heartbeat);
      unsubscribeBus();
      unsubscribeEnds();
      await closeAll(hub.all(), 1001, 'Server shutting down');
      wss.close();
    });
  },
};
