// The faults API group (console API, console token): a workspace's injected faults set, read and
// cleared. HTTP only; the rules are in service.ts. Setting a realtime rule drops the workspace's
// open sockets at once, in every process on a shared database.
import type { Router } from 'express';
import type { AppContext, Module } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import { parseBody } from '../../core/validate.js';
import { settingRoutes } from '../crud-routes.js';
import { FaultsBody } from './schemas.js';
import { clearFaults, FAULTS_TOPIC, hasRealtimeRule, putFaults, viewFaults } from './service.js';
import { dropSockets } from '../realtime/index.js';

/** The open sockets go when a realtime rule is set (here and in the other processes). */
function dropIfRealtime(ctx: AppContext, ws: Workspace): void {
  if (hasRealtimeRule(ws)) dropSockets(ctx, ws);
}

export const faultsModule: Module = {
  name: 'faults',
  consoleRoutes(router: Router, ctx: AppContext) {
    settingRoutes(router, '/workspaces/:appId/faults', {
      get: (req) => viewFaults(ctx, req.ws),
      put: async (req, raw) => {
        await putFaults(req.ws, parseBody(FaultsBody, raw));
        req.ws.processes.tell(req.ws.id, FAULTS_TOPIC, {});
        dropIfRealtime(ctx, req.ws);
        return viewFaults(ctx, req.ws);
      },
      clear: async (req) => { await clearFaults(req.ws); },
    });
  },
  start(ctx: AppContext) {
    // Another process set a workspace's faults (its settings, read again before this message
    // arrives, hold them); undefined data: messages may have been missed, nothing to drop.
    ctx.registry.processes.hear(FAULTS_TOPIC, (ws, data) => { if (data) dropIfRealtime(ctx, ws); });
  },
};
