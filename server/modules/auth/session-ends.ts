// Sessions that end, said aloud the moment they end: whoever holds something alive for a session
// (the realtime sockets) hears it before the call that ended it answers, in this process, and
// through the database's relay in the other processes sharing it. The session check of every
// request (sessions.ts liveSession) stays the rule; this only makes its outcome arrive at once
// where nothing asks (an idle socket receiving events).
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';

/** What ended. Every field is optional; a socket matching any of them is ended. */
export interface SessionEnd {
  /** These sessions ended (sign-out, a refresh token reused or expired, a password change). */
  sessions?: string[];
  /** Every session of these users ended (the user was deleted). */
  users?: string[];
  /** Impersonations by these administrators ended (demoted or deleted). */
  impersonators?: string[];
}

/** The topic the processes on one database tell each other ended sessions on. */
export const SESSION_END_TOPIC = 'sessions.ended';

export type SessionEndListener = (ws: Workspace, end: SessionEnd) => void;

/** Hears the sessions that end in this server, with their workspace. Returns the unsubscribe. */
export function onSessionsEnded(ctx: AppContext, listener: SessionEndListener): () => void {
  const listeners = ctx.state.auth.sessionEndListeners;
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Says that sessions ended: to this server's listeners at once, and to the other processes on
 *  the same database. Call it after the store no longer holds them. */
export function sessionsEnded(ctx: AppContext, ws: Workspace, end: SessionEnd): void {
  const clean: SessionEnd = {};
  if (end.sessions?.length) clean.sessions = end.sessions;
  if (end.users?.length) clean.users = end.users;
  if (end.impersonators?.length) clean.impersonators = end.impersonators;
  if (!clean.sessions && !clean.users && !clean.impersonators) return;
  for (const listener of ctx.state.auth.sessionEndListeners) {
    try { listener(ws, clean); } catch { /* a listener never fails the call that ended a session */ }
  }
  ws.processes.tell(ws.id, SESSION_END_TOPIC, clean);
}

/** Does an ended-sessions message end this caller's session? */
export function endsSession(end: SessionEnd, auth: { sessionId: string; userId: string; impersonatedBy?: string }): boolean {
  return !!(end.sessions?.includes(auth.sessionId)
    || end.users?.includes(auth.userId)
    || (auth.impersonatedBy && end.impersonators?.includes(auth.impersonatedBy)));
}
