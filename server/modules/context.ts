// What every module receives: the configuration, the workspace registry, the event bus, hooks
// into the HTTP server (WebSocket upgrades) and shutdown, and the state this server holds in
// memory, one entry per module (made by each module's `create(ctx)`: see ./server-state.ts).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Router } from 'express';
import type { ServerConfig } from '../core/config.js';
import type { Registry } from '../storage/registry.js';
import type { EventBus } from '../core/bus.js';
import type { ServerState } from './server-state.js';

/** Returns true when it took the upgrade request. */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;

/** What a module's `create(ctx)` may use: the context before the modules' state is made. */
export interface BaseContext {
  config: ServerConfig;
  registry: Registry;
  bus: EventBus;
  upgradeHandlers: UpgradeHandler[];
  /** Run on shutdown, before the stores are flushed (stop timers, close sockets). */
  closers: Array<() => void | Promise<void>>;
}

export interface AppContext extends BaseContext {
  /** Everything this server holds in memory (queues, hubs, limiters, sessions caches...), by
   *  module: nothing of a running server lives in a module-level variable. */
  state: ServerState;
}

/** One API group. Routers are mounted in app.ts, in the order of the module list. */
export interface Module {
  name: string;
  /** Routes relative to `/api/app/:appId` (workspace resolved, token read into req.auth). */
  workspaceRoutes?(router: Router, ctx: AppContext): void;
  /** Routes relative to `/api/workspaces/:appId` (console token checked, workspace resolved). */
  consoleRoutes?(router: Router, ctx: AppContext): void;
  /** Background work (queues, schedules, sockets); runs once the app is built. */
  start?(ctx: AppContext): void | Promise<void>;
}
