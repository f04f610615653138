// The users store of a workspace: documents with a bcrypt hash that never leaves this module
// except in a console export. Used by the users, auth and console modules.
import bcrypt from '@node-rs/bcrypt';
import { availableParallelism } from 'node:os';
import type { Workspace } from '../../storage/workspace.js';
import { withIndexes, type Store } from '../../storage/store.js';
import { ApiError } from '../../core/errors.js';
import { UniqueViolationError } from '../../storage/errors.js';
import { newId } from '../../core/ids.js';
import type { User } from '../../shared/models.js';
import type { BusEvent } from '../../core/bus.js';

/** The event a user write publishes, made from the document it writes: a driver with an outbox
 *  stores it with the write. */
export type UserEventOf = (doc: UserDoc) => BusEvent;

export interface UserDoc extends User { passwordHash: string; [key: string]: unknown }

export async function usersStore(ws: Workspace): Promise<Store> {
  return withIndexes(await ws.store('users'), [{ fieldName: 'email', unique: true }]);
}

export function normalizeEmail(email: string): string { return email.trim().toLowerCase(); }

/** The user as the API shows it: never the hash. */
export function publicUser(doc: Record<string, unknown>): User {
  const { passwordHash: _omit, ...rest } = doc as UserDoc;
  return rest as User;
}

// bcrypt (@node-rs/bcrypt: native, prebuilt per platform as optional packages, so installing
// Homebase runs no install script) runs on libuv's thread pool, off the event loop, but that pool (4 threads by
// default) also serves file writes: a burst of logins must not take every thread and hold
// back the stores' appends, nor every core. At most half the pool (and one core fewer than the
// machine has) hashes at once; the rest wait in line.
const BCRYPT_SLOTS = Math.max(1, Math.min(Math.floor((Number(process.env.UV_THREADPOOL_SIZE) || 4) / 2), availableParallelism() - 1));
let bcryptBusy = 0;
const bcryptQueue: Array<() => void> = [];

async function withBcryptSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (bcryptBusy >= BCRYPT_SLOTS) await new Promise<void>((resolve) => bcryptQueue.push(resolve));
  else bcryptBusy++;
  try {
    return await fn();
  } finally {
    const next = bcryptQueue.shift();
    if (next) next(); else bcryptBusy--;
  }
}

const EARLY_HASH = Symbol.for('homebase.earlyHash');
/** Hashes begun ahead of their use (hashAhead), by cost and password. Not server state: held by
 *  the process like the bcrypt threads it runs on (the bin may begin one before any server
 *  exists), and a hash of a password serves whichever server stores that password. */
const ahead = new Map<string, Promise<string>>();

/** Begins hashing a password about to be stored (the first admin of a start): bcrypt works on
 *  its own threads while the start does the rest, and hashPassword takes the result. Forgotten
 *  after 10 s if nothing asked for it. */
export function hashAhead(password: string, cost: number): void {
  const key = `${cost}\u0000${password}`;
  if (ahead.has(key)) return;
  // The `homebase` bin may have begun it before the server's code loaded (bin/homebase.js).
  const holder = globalThis as { [EARLY_HASH]?: { password: string; cost: number; hash: Promise<string> } };
  const early = holder[EARLY_HASH];
  delete holder[EARLY_HASH];
  const hash = early && early.password === password && early.cost === cost ? early.hash : withBcryptSlot(() => bcrypt.hash(password, cost));
  hash.catch(() => undefined);
  ahead.set(key, hash);
  setTimeout(() => { if (ahead.get(key) === hash) ahead.delete(key); }, 10_000).unref();
}

export function hashPassword(password: string, cost: number): Promise<string> {
  const key = `${cost}\u0000${password}`;
  const early = ahead.get(key);
  if (early) { ahead.delete(key); return early; }
  return withBcryptSlot(() => bcrypt.hash(password, cost));
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  // A malformed stored hash (hand-edited data) is a failed sign-in, not an error.
  return withBcryptSlot(() => bcrypt.verify(password, hash).catch(() => false));
}

export async function findUserByEmail(ws: Workspace, email: string): Promise<UserDoc | undefined> {
  return (await (await usersStore(ws)).findBy('email', normalizeEmail(email)))[0] as UserDoc | undefined;
}

export async function findUser(ws: Workspace, id: string): Promise<UserDoc | undefined> {
  return (await (await usersStore(ws)).get(id)) as UserDoc | undefined;
}

export interface NewUser { email: string; password: string; name?: string; role?: string; [key: string]: unknown }

/** Inserts a user; 409 when the email is taken. */
export async function insertUser(ws: Workspace, input: NewUser, cost: number, eventOf?: UserEventOf): Promise<UserDoc> {
  const store = await usersStore(ws);
  const email = normalizeEmail(input.email);
  if ((await store.findBy('email', email)).length) throw ApiError.conflict(`A user with email '${email}' already exists`, { field: 'email' });
  const { password, ...profile } = input;
  const now = ws.nowIso();
  const doc = userDoc({ ...profile, email }, newId(), await hashPassword(password, cost), now, now);
  try {
    return (await store.insert(doc, eventOf && { event: eventOf(doc) })) as UserDoc;
  } catch (err) {
    if (err instanceof UniqueViolationError) throw ApiError.conflict(`A user with email '${email}' already exists`, { field: 'email' });
    throw err;
  }
}

/** The role of a user made without one. */
export const DEFAULT_ROLE = 'user';

/** A stored user from its profile (email already normalised): `name` and `role` take their
 *  defaults when absent. */
function userDoc(profile: { email: string; name?: string; role?: string; [key: string]: unknown }, id: string, passwordHash: string, createdAt: string, updatedAt: string): UserDoc {
  return { ...profile, _id: id, email: profile.email, name: profile.name ?? '', role: profile.role ?? DEFAULT_ROLE, passwordHash, createdAt, updatedAt };
}

export interface UserPatch { email?: string; password?: string; [key: string]: unknown }

/** A whole replacement of a user's profile: the fields sent become the profile (profile fields
 *  not sent are removed, `name` and `role` take their defaults), except the `keep` fields, which
 *  keep their current values; the password (never shown) is kept unless a new one is sent. */
export interface UserReplace { keep: readonly string[] }

/** Applies a partial update (fields absent stay), or with `replace` a whole replacement; hashes
 *  a new password; 409 when the new email belongs to another user; 404 when the user is gone. */
export async function updateUser(ws: Workspace, id: string, patch: UserPatch, cost: number, replace?: UserReplace, eventOf?: UserEventOf): Promise<UserDoc> {
  const store = await usersStore(ws);
  const { password, ...fields } = patch;
  const passwordHash = password === undefined ? undefined : await hashPassword(password, cost);
  // Read after hashing (it takes a while), alone among the changes to this user.
  return store.exclusive(id, async () => {
  const current = (await store.get(id)) as UserDoc | undefined;
  if (!current) throw ApiError.notFound('User', id);
  const next: UserDoc = replace
    ? userDoc({ ...fields, ...kept(current, replace.keep) } as UserDoc, current._id, current.passwordHash, current.createdAt, ws.nowIso())
    : { ...current, ...fields, _id: current._id, createdAt: current.createdAt, updatedAt: ws.nowIso() };
  if (fields.email !== undefined) {
    next.email = normalizeEmail(fields.email);
    const owner = (await store.findBy('email', next.email))[0];
    if (owner && owner._id !== id) throw ApiError.conflict(`A user with email '${next.email}' already exists`, { field: 'email' });
  }
  if (passwordHash) next.passwordHash = passwordHash;
  try {
    const stored = await store.replace(id, next, eventOf && { event: eventOf(next) });
    if (!stored) throw ApiError.notFound('User', id);
    return stored as UserDoc;
  } catch (err) {
    if (err instanceof UniqueViolationError) throw ApiError.conflict(`A user with email '${next.email}' already exists`, { field: 'email' });
    throw err;
  }
  });
}

function kept(current: UserDoc, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (Object.hasOwn(current, key) && !['_id', 'passwordHash', 'createdAt', 'updatedAt'].includes(key)) out[key] = current[key];
  return out;
}

/** Deletes a user; resolves to the document as it was, or undefined when there was none. */
export async function deleteUser(ws: Workspace, id: string, eventOf?: UserEventOf): Promise<UserDoc | undefined> {
  const store = await usersStore(ws);
  return store.exclusive(id, async () => {
    const current = (await store.get(id)) as UserDoc | undefined;
    if (!current) return undefined;
    await store.remove(id, eventOf && { event: eventOf(current) });
    return current;
  });
}

/** How many administrators the workspace has (the last one may not be demoted or deleted). */
export async function countAdmins(ws: Workspace): Promise<number> {
  return (await (await usersStore(ws)).findBy('role', 'admin')).length;
}
