// What a running server holds in memory, in one place: one entry per module that keeps
// something (queues, hubs, limiters, timers, caches), each made by that module's `create(ctx)`.
// Nothing of a server lives in a module-level variable, so two servers in one process (tests,
// forks) never share any of it. The context every module receives is assembled here.
import type { AppContext, BaseContext } from './context.js';
import * as auth from './auth/index.js';
import * as users from './users/index.js';
import * as chats from './chats/index.js';
import * as clock from './clock/index.js';
import * as faults from './faults/index.js';
import * as realtime from './realtime/index.js';
import * as requestLog from './request-log/index.js';
import * as scenarios from './scenarios/index.js';
import * as storage from './storage/index.js';
import * as webhooks from './webhooks/index.js';
import * as workspaces from './workspaces/index.js';

export interface ServerState {
  auth: auth.AuthState;
  users: users.UsersState;
  chats: chats.ChatsState;
  clock: clock.ClockState;
  faults: faults.FaultsState;
  realtime: realtime.RealtimeState;
  requestLog: requestLog.RequestLogState;
  scenarios: scenarios.ScenariosState;
  storage: storage.StorageState;
  webhooks: webhooks.WebhooksState;
  workspaces: workspaces.WorkspacesState;
}

/** The context of one server: `base` plus every module's state. Modules that need each other's
 *  work get it here, explicitly (the users module ends sessions through the auth module's). */
export function createContext(base: BaseContext): AppContext {
  const state: ServerState = {
    auth: auth.create(base),
    users: users.create(base, auth.accountEnds),
    chats: chats.create(base),
    clock: clock.create(base),
    faults: faults.create(base),
    realtime: realtime.create(base),
    requestLog: requestLog.create(base),
    scenarios: scenarios.create(base),
    storage: storage.create(base),
    webhooks: webhooks.create(base),
    workspaces: workspaces.create(base),
  };
  return Object.assign(base, { state });
}
