// User administration rules without HTTP: create, update and delete users, ending sessions
// where a password changes or a user goes, keeping at least one administrator (and a first
// admin: when it is deleted or demoted, the oldest remaining admin takes its place), and
// publishing user.created / user.updated / user.deleted (public user only, never the hash).
import type { AppContext } from '../context.js';
import { newEventId, type Actor, type BusEvent } from '../../core/bus.js';
import { ApiError } from '../../core/errors.js';
import type { Workspace } from '../../storage/workspace.js';
import type { StoreQuery } from '../../storage/query.js';
import { listMeta, parseListQuery } from '../../core/list-query.js';
import type { ListMeta, User } from '../../shared/models.js';
import { HIDDEN_FIELDS } from './schemas.js';
import { countAdmins, DEFAULT_ROLE, deleteUser, findUser, insertUser, publicUser, updateUser, usersStore, type NewUser, type UserDoc, type UserPatch, type UserReplace } from './repo.js';

/** What ends with an account's password, admin rights or existence: its sessions, the
 *  impersonations it started, its reset links. The sign-in side (the auth module) supplies it;
 *  the server's assembly hands it to this module's state (modules/server-state.ts). */
export interface AccountEnds {
  /** The password changed: every session but `keepSessionId` ends, and the reset links. */
  passwordChanged(ctx: AppContext, ws: Workspace, userId: string, keepSessionId?: string): Promise<void>;
  /** An administrator is one no longer: the impersonations he started end. */
  adminDemoted(ctx: AppContext, ws: Workspace, userId: string): void;
  /** The user was deleted: said at once to who holds his sessions (sockets) or impersonations. */
  removed(ctx: AppContext, ws: Workspace, userId: string): void;
  /** Then his sessions and reset links are deleted. */
  removedForgotten(ctx: AppContext, ws: Workspace, userId: string): Promise<void>;
}

/** A page of users as clients see them (never the hash), from a raw list query (`filter[...]`,
 *  `sort`, `fields`, `limit`, `offset`): the REST list and the GraphQL one both ask here. */
export async function listUsers(ws: Workspace, query: Record<string, unknown>): Promise<{ data: User[]; meta: ListMeta }> {
  const q = parseListQuery(query, { typeOf: (p) => (USER_TYPES[p]) });
  assertNoHiddenField(q);
  const { data, total } = await (await usersStore(ws)).find(q);
  return { data: data.map(publicUser), meta: listMeta(total, q) };
}

const USER_TYPES: Record<string, 'string' | 'date'> = {
  _id: 'string', email: 'string', name: 'string', role: 'string', createdAt: 'date', updatedAt: 'date',
};

/** Filtering, sorting or selecting the hash would turn the list into an oracle: refused. */
function assertNoHiddenField(q: StoreQuery): void {
  const paths = [...q.conditions.map((c) => c.path), ...q.sort.map((s) => s.path), ...(q.fields ?? [])];
  for (const path of paths) {
    const root = path.split('.')[0];
    if (HIDDEN_FIELDS.includes(root)) throw ApiError.badRequest(`'${root}' cannot be filtered, sorted or selected`, { field: root });
  }
}

type UserEvent = 'user.created' | 'user.updated' | 'user.deleted';

/** The event of a user write (the public user only), made before the write so that a driver
 *  with an outbox stores it with the write (its id and time are those published). */
function userEvent(ws: Workspace, type: UserEvent, user: UserDoc, actor?: Actor): BusEvent {
  return { id: newEventId(), type, app: ws.id, timestamp: ws.nowIso(), data: publicUser(user) as unknown as Record<string, unknown>, ...(actor ? { actor } : {}) };
}

/** Publishes a user write's event (`event`, the one stored with the write; made now when the
 *  write stored none) with the user as written. */
function publishUserEvent(ctx: AppContext, ws: Workspace, type: UserEvent, user: UserDoc, actor: Actor | undefined, event: BusEvent | undefined): void {
  ctx.bus.publish({ ...(event ?? userEvent(ws, type, user, actor)), data: publicUser(user) as unknown as Record<string, unknown> });
}

/** An event maker for a user write that keeps the event it made (the last, when the write was
 *  tried again). */
function eventKept(ws: Workspace, type: UserEvent, actor?: Actor): { of: (doc: UserDoc) => BusEvent; event?: BusEvent } {
  const kept: { of: (doc: UserDoc) => BusEvent; event?: BusEvent } = { of: (doc) => (kept.event = userEvent(ws, type, doc, actor)) };
  return kept;
}

export async function createUser(ctx: AppContext, ws: Workspace, input: NewUser, actor?: Actor): Promise<UserDoc> {
  const made = eventKept(ws, 'user.created', actor);
  const user = await insertUser(ws, input, ctx.config.bcryptCost, made.of);
  publishUserEvent(ctx, ws, 'user.created', user, actor, made.event);
  return user;
}

/** Creates the first admin of a new workspace and records it as such (the admin a reset keeps
 *  and the console signs in as). Its input was checked with FirstAdminInput. */
export async function createFirstAdmin(ctx: AppContext, ws: Workspace, input: { email: string; password: string; name?: string }): Promise<UserDoc> {
  const made = eventKept(ws, 'user.created');
  const admin = await insertUser(ws, { email: input.email, password: input.password, name: input.name ?? 'Admin', role: 'admin' }, ctx.config.bcryptCost, made.of);
  await ws.settings.update((d) => { d.firstAdminId = admin._id; });
  publishUserEvent(ctx, ws, 'user.created', admin, undefined, made.event);
  return admin;
}

export interface UpdateOptions {
  actor?: Actor;
  /** The caller's own session: kept when the password changes (other sessions end). */
  keepSessionId?: string;
  /** A whole replacement instead of a partial update (repo.ts UserReplace): `keep` names the
   *  fields the caller may not change, which keep their values. */
  replace?: UserReplace;
}

/** Role changes and deletions run one at a time per workspace: two admins demoting or deleting
 *  each other at once must not leave the workspace without one. */
async function adminGuard<T>(ws: Workspace, fn: () => Promise<T>): Promise<T> {
  return (await usersStore(ws)).exclusive('$admins', fn);
}

export async function changeUser(ctx: AppContext, ws: Workspace, id: string, given: UserPatch, options: UpdateOptions = {}): Promise<UserDoc> {
  // A replacement without a role gives the default one (unless the role is kept): a role change
  // like any other, under the same guard.
  const patch = options.replace && !options.replace.keep.includes('role') ? { ...given, role: given.role ?? DEFAULT_ROLE } : given;
  if (patch.role !== undefined) return adminGuard(ws, () => applyUserChange(ctx, ws, id, patch, options));
  return applyUserChange(ctx, ws, id, patch, options);
}

async function applyUserChange(ctx: AppContext, ws: Workspace, id: string, patch: UserPatch, options: UpdateOptions): Promise<UserDoc> {
  const current = await findUser(ws, id);
  if (!current) throw ApiError.notFound('User', id);
  if (patch.role !== undefined && current.role === 'admin' && patch.role !== 'admin' && (await countAdmins(ws)) <= 1) {
    throw ApiError.conflict('The workspace must keep at least one administrator', { field: 'role' });
  }
  const made = eventKept(ws, 'user.updated', options.actor);
  const user = await updateUser(ws, id, patch, ctx.config.bcryptCost, options.replace, made.of);
  if (current.role === 'admin' && user.role !== 'admin') {
    // His impersonations end with his admin rights (REST refuses their tokens from now on).
    ctx.state.users.ends.adminDemoted(ctx, ws, id);
    await moveFirstAdmin(ws, id);
  }
  if (patch.password !== undefined) {
    await ctx.state.users.ends.passwordChanged(ctx, ws, id, options.keepSessionId);
  }
  publishUserEvent(ctx, ws, 'user.updated', user, options.actor, made.event);
  return user;
}

export async function removeUser(ctx: AppContext, ws: Workspace, id: string, actor?: Actor): Promise<void> {
  return adminGuard(ws, () => applyUserRemoval(ctx, ws, id, actor));
}

async function applyUserRemoval(ctx: AppContext, ws: Workspace, id: string, actor?: Actor): Promise<void> {
  const current = await findUser(ws, id);
  if (!current) throw ApiError.notFound('User', id);
  if (current.role === 'admin' && (await countAdmins(ws)) <= 1) {
    throw ApiError.conflict('The last administrator of the workspace cannot be deleted');
  }
  const made = eventKept(ws, 'user.deleted', actor);
  const removed = await deleteUser(ws, id, made.of);
  if (!removed) throw ApiError.notFound('User', id);
  ctx.state.users.ends.removed(ctx, ws, id);
  await moveFirstAdmin(ws, id);
  await ctx.state.users.ends.removedForgotten(ctx, ws, id);
  publishUserEvent(ctx, ws, 'user.deleted', removed, actor, made.event);
}

/** The workspace's admins, oldest first (creation time, then id). */
export async function adminsOldestFirst(ws: Workspace): Promise<UserDoc[]> {
  const admins = (await (await usersStore(ws)).findBy('role', 'admin')) as UserDoc[];
  return admins.sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)) || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
}

/** When `formerAdminId` was the workspace's first admin (the one a reset keeps and the console
 *  signs in as) and is one no longer (deleted or demoted), the oldest remaining admin takes over. */
async function moveFirstAdmin(ws: Workspace, formerAdminId: string): Promise<void> {
  if (ws.settings.data.firstAdminId !== formerAdminId) return;
  const next = (await adminsOldestFirst(ws)).find((u) => u._id !== formerAdminId);
  if (!next) return;
  await ws.settings.update((d) => { if (d.firstAdminId === formerAdminId) d.firstAdminId = next._id; });
}
