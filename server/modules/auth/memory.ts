// What the auth module holds for one server: its login limiter (two servers in one process never
// share counts), made on first use; who hears of the sessions that end in it; the outbox waits
// pending at shutdown; and, per workspace, what its outbox and reset tokens need in memory.
import type { Workspace } from '../../storage/workspace.js';
import type { BaseContext } from '../context.js';
import type { LoginLimiter } from './rate-limit.js';
import type { SessionEndListener } from './session-ends.js';

export interface AuthOfWorkspace {
  /** Epoch ms of the last outbox email's `createdAt` (each one later than the one before). */
  lastEmailStamp: number;
  /** Called after each email written to the outbox. */
  emailListeners: Set<() => void>;
  /** Outbox long polls pending. */
  waiting: number;
  /** Reset tokens (their hashes) being spent right now: a second caller is turned away. */
  spending: Set<string>;
}

export interface AuthState {
  limiter?: LoginLimiter;
  /** Told of the sessions that end (the realtime sockets close theirs). */
  sessionEndListeners: Set<SessionEndListener>;
  /** Wakes each pending outbox wait (at shutdown they answer at once). */
  outboxWaking: Set<() => void>;
  /** Set at shutdown: no outbox wait goes on. */
  stopping: boolean;
  workspaces: WeakMap<Workspace, AuthOfWorkspace>;
}

export function create(_ctx: BaseContext): AuthState {
  return { sessionEndListeners: new Set(), outboxWaking: new Set(), stopping: false, workspaces: new WeakMap() };
}

/** What the auth module holds for one workspace, made on first use. */
export function authOf(state: AuthState, ws: Workspace): AuthOfWorkspace {
  let mine = state.workspaces.get(ws);
  if (!mine) { mine = { lastEmailStamp: 0, emailListeners: new Set(), waiting: 0, spending: new Set() }; state.workspaces.set(ws, mine); }
  return mine;
}
