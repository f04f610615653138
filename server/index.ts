// createServer builds the server from options without listening; startServer listens too and
// is what the CLI, the desktop shell and test suites call.
import http from 'node:http';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type express from 'express';
import { ConfigError, resolveConfig, isLoopbackHost, type ServerConfig, type ServerOptions } from './core/config.js';
import { applyHeapGrowth } from './core/heap-growth.js';
import { FirstAdminInput } from './modules/users/index.js';
import { hashAhead } from './modules/users/index.js';
import { openStorage } from './storage/open-storage.js';
import type { Registry } from './storage/registry.js';
import { acquireLock } from './storage/lock.js';
import { DatabaseError } from './storage/pg/database-error.js';
import { EventBus } from './core/bus.js';
import type { AppContext } from './modules/context.js';
import { createContext } from './modules/server-state.js';
import { buildApp } from './app.js';
import { ApiError } from './core/errors.js';
import { modules } from './modules/index.js';
import { startKeptEvents } from './modules/kept-events.js';
import { createWorkspace, createFirstWorkspace, firstAdminStored } from './modules/workspaces/index.js';
import { applySeed } from './modules/workspaces/index.js';
import { takeSnapshot, restoreSnapshot, type SnapshotInfo } from './modules/workspaces/index.js';
import { resetWorkspace, type ResetOptions, type ResetResult } from './modules/workspaces/index.js';

export type { ServerOptions, ServerConfig };
/** Thrown by createServer / startServer for a bad option (its message names the option). */
export { ConfigError } from './core/config.js';
/** A bad, unreachable or unusable `database` (its message is one line naming the problem). */
export { DatabaseError };
export { DumpFileError } from './modules/workspaces/index.js';

export interface HomebaseServer {
  app: express.Express;
  ctx: AppContext;
  config: ServerConfig;
  consoleToken: string;
  /** Set on the first start of an empty data folder when no admin password was given. */
  generatedAdmin?: { workspace: string; email: string; password: string };
  /** Stops the server and flushes the stores; the data folder's lock is released in any case.
   *  Rejects with a ShutdownError listing what could not be flushed (a full or read-only disk). */
  close(): Promise<void>;
}

/** What a stop could not flush, one line each in `problems` (and in the message). */
export class ShutdownError extends Error {
  constructor(readonly problems: string[]) {
    super(`Stopped, but not everything could be flushed:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export async function createServer(options: ServerOptions = {}): Promise<HomebaseServer> {
  const config = resolveConfig(options);
  checkAdminOptions(config);
  applyHeapGrowth(config.heapGrowingPercent);
  return assemble(config);
}

/** Builds the server on the storage engine the configuration names. */
async function assemble(config: ServerConfig): Promise<HomebaseServer> {
  let releaseLock: (() => void) | undefined;
  let opened: Registry | undefined;
  if (config.dataDir) {
    mkdirSync(config.dataDir, { recursive: true });
    releaseLock = acquireLock(config.dataDir);
  }
  try {
    // A first start (in memory, or an empty data folder) creates the first admin: its password
    // hash, most of a start's time, is begun now and made while the rest of the start runs.
    if (!config.database && config.adminPassword && (!config.dataDir || !existsSync(join(config.dataDir, 'homebase.json')))) hashAhead(config.adminPassword, config.bcryptCost);
    const bus = new EventBus();
    // The engine is picked here, once (storage/open-storage.ts): with a database the URL is
    // checked, the server reached and its schema created or upgraded before anything else.
    const registry = opened = await openStorage(config, bus);
    const ctx: AppContext = createContext({ config, registry, bus, upgradeHandlers: [], closers: [] });
    const app = buildApp(ctx, modules);
    for (const m of modules) await m.start?.(ctx);
    await startKeptEvents(ctx);

    let generatedAdmin: HomebaseServer['generatedAdmin'];
    if (registry.list().length === 0) {
      if (!config.adminPassword && !isLoopbackHost(config.host)) {
        throw new Error(`Refusing to start on non-loopback host ${config.host} without an admin password: pass --admin-password or set HOMEBASE_ADMIN_PASSWORD.`);
      }
      // In memory without a seed, the first admin is stored just after the start returns
      // (modules/workspaces/first-admin.ts): requests to the workspace wait for it.
      const { generatedPassword } = await createFirstWorkspace(ctx, {
        _id: config.workspace, name: config.workspace,
        admin: { email: config.adminEmail, ...(config.adminPassword ? { password: config.adminPassword } : {}) },
      }, !config.dataDir && !config.database && !config.seed);
      if (generatedPassword) generatedAdmin = { workspace: config.workspace, email: config.adminEmail, password: generatedPassword };
    }
    // A seed fills the default workspace when it is still empty (see docs/testing.md).
    if (config.seed) {
      const ws = registry.get(config.workspace) ?? (await createWorkspace(ctx, { _id: config.workspace, name: config.workspace, admin: { email: config.adminEmail, ...(config.adminPassword ? { password: config.adminPassword } : {}) } })).ws;
      await applySeed(ctx, ws, config.seed);
    }

    let closed: Promise<void> | undefined;
    const close = () => (closed ??= (async () => {
      const problems: string[] = [];
      try {
        const main = registry.get(config.workspace);
        if (main) await firstAdminStored(ctx, main)?.catch(() => undefined);
        for (const c of ctx.closers.splice(0)) {
          try { await c(); } catch (err) { problems.push((err as Error).message); }
        }
        problems.push(...await registry.close());
      } catch (err) {
        problems.push((err as Error).message);
      } finally {
        releaseLock?.();
        await registry.engine.close(); // closed by registry.close already, unless it was not reached
      }
      if (problems.length) throw new ShutdownError(problems);
    })());
    return { app, ctx, config, consoleToken: registry.consoleToken, generatedAdmin, close };
  } catch (err) {
    releaseLock?.();
    await opened?.engine.close();
    throw err;
  }
}

/** The first admin's email and password follow the users module's rules (a password over 72
 *  bytes would be cut by bcrypt); a bad one is a ConfigError naming the option. */
function checkAdminOptions(config: ServerConfig): void {
  const result = FirstAdminInput.safeParse({ email: config.adminEmail, ...(config.adminPassword ? { password: config.adminPassword } : {}) });
  if (result.success) return;
  const issue = result.error.issues[0];
  throw new ConfigError(`${issue.path[0] === 'password' ? 'adminPassword' : 'adminEmail'}: ${issue.message}`);
}

export interface StartedServer extends HomebaseServer {
  server: http.Server;
  port: number;
  /** `http://host:port/api` */
  url: string;
  /** `http://host:port` */
  consoleUrl: string;
  workspaces: string[];
  /** Test-suite helpers on the default workspace (`config.workspace`). */
  snapshot(name: string, options?: { overwrite?: boolean }): Promise<SnapshotInfo>;
  restore(name: string): Promise<SnapshotInfo>;
  reset(options?: ResetOptions): Promise<ResetResult>;
}

export async function startServer(options: ServerOptions = {}): Promise<StartedServer> {
  const base = await createServer(options);
  const server = http.createServer({ keepAliveTimeout: 5000 }, base.app);
  server.on('clientError', answerClientError);
  server.on('upgrade', (req, socket, head) => {
    for (const handle of base.ctx.upgradeHandlers) if (handle(req, socket, head)) return;
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(base.config.port, base.config.host, () => { server.off('error', reject); resolve(); });
    });
  } catch (err) {
    await base.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = base.config.host.includes(':') ? `[${base.config.host}]` : base.config.host;
  const consoleUrl = `http://${hostForUrl}:${port}`;

  // Stop accepting, close sockets, let in-flight requests finish, then flush the stores.
  let stopping: Promise<void> | undefined;
  const close = () => (stopping ??= (async () => {
    const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), 10_000);
    const problems: string[] = [];
    for (const c of base.ctx.closers.splice(0)) {
      try { await c(); } catch (err) { problems.push((err as Error).message); }
    }
    await serverClosed;
    clearTimeout(force);
    try { await base.close(); } catch (err) { problems.push(...(err instanceof ShutdownError ? err.problems : [(err as Error).message])); }
    if (problems.length) throw new ShutdownError(problems);
  })());

  return {
    ...base,
    server,
    port,
    url: `${consoleUrl}/api`,
    consoleUrl,
    workspaces: base.ctx.registry.list().map((w) => w._id),
    snapshot: async (name, opts) => takeSnapshot(base.ctx, await mainWorkspace(base), name, opts?.overwrite),
    restore: async (name) => restoreSnapshot(base.ctx, await mainWorkspace(base), name),
    reset: async (opts) => resetWorkspace(base.ctx, await mainWorkspace(base), opts),
    close,
  };
}

/** The default workspace, once its first admin is stored. */
async function mainWorkspace(base: HomebaseServer) {
  const ws = base.ctx.registry.require(base.config.workspace);
  await firstAdminStored(base.ctx, ws);
  return ws;
}

/** A request Node's HTTP parser refuses (a malformed request line or Content-Length, bytes past
 *  the declared body, headers over the 16 KiB limit) gets the contract's error body instead of
 *  Node's bare status line; as in Node's default handler, the connection is then closed. */
function answerClientError(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      socket.write('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    } else {
      const message = err.code === 'HPE_HEADER_OVERFLOW' ? 'Request line and headers are over the 16 KiB limit' : 'Malformed HTTP request';
      const body = JSON.stringify(ApiError.badRequest(message).toBody());
      socket.write(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
        + `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`);
    }
  }
  socket.destroy(err);
}
