// The workspace outbox: emails Homebase would have sent (password recovery), kept in the
// `outbox` store so that a developer or a test suite can read them on the console API.
import type { Workspace } from '../../storage/workspace.js';
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

// Newest first relies on createdAt: two emails written in the same millisecond get distinct,
// increasing stamps so that the order stays the order of sending.
const lastStamp = new Map<string, number>();

const listeners = new WeakMap<Workspace, Set<() => void>>();

/** Calls `fn` after each email written to `ws`'s outbox by this process; returns the unsubscribe. */
export function onEmail(ws: Workspace, fn: () => void): () => void {
  let set = listeners.get(ws);
  if (!set) { set = new Set(); listeners.set(ws, set); }
  set.add(fn);
  return () => { set.delete(fn); };
}

export async function sendEmail(ws: Workspace, email: { type: string; to: string; subject: string; text: string; [key: string]: unknown }): Promise<OutboxEmail> {
  const store = await outboxStore(ws);
  const stamp = Math.max(ws.now(), (lastStamp.get(ws.id) ?? 0) + 1);
  lastStamp.set(ws.id, stamp);
  const doc: OutboxEmail = { ...email, _id: newId(), createdAt: new Date(stamp).toISOString() };
  const stored = (await store.insert(doc)) as OutboxEmail;
  for (const fn of [...listeners.get(ws) ?? []]) fn();
  return stored;
}
