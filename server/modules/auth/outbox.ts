// The workspace outbox: emails Homebase would have sent (password recovery), kept in the
// `outbox` store so that a developer or a test suite can read them on the console API.
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import { authOf } from './memory.js';
import type { Store } from '../../storage/store.js';
import { newId } from '../../core/ids.js';

export interface OutboxEmail {
  _id: string;
  /** What the email is for: `password-reset`. */
  type: string;
  to: string;
  subject: string;
  text: string;
  createdAt: string;
  [key: string]: unknown;
}

export function outboxStore(ws: Workspace): Promise<Store> {
  return ws.store('outbox');
}

/** Calls `fn` after each email written to `ws`'s outbox by this server; returns the unsubscribe. */
export function onEmail(ctx: AppContext, ws: Workspace, fn: () => void): () => void {
  const listeners = authOf(ctx.state.auth, ws).emailListeners;
  listeners.add(fn);
  return () => { listeners.delete(fn); };
}

export async function sendEmail(ctx: AppContext, ws: Workspace, email: { type: string; to: string; subject: string; text: string; [key: string]: unknown }): Promise<OutboxEmail> {
  const store = await outboxStore(ws);
  const mine = authOf(ctx.state.auth, ws);
  // Newest first relies on createdAt: two emails written in the same millisecond get distinct,
  // increasing stamps so that the order stays the order of sending.
  const stamp = Math.max(ws.now(), mine.lastEmailStamp + 1);
  mine.lastEmailStamp = stamp;
  const doc: OutboxEmail = { ...email, _id: newId(), createdAt: new Date(stamp).toISOString() };
  const stored = (await store.insert(doc)) as OutboxEmail;
  for (const fn of [...mine.emailListeners]) fn();
  return stored;
}
