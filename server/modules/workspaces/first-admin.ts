// The first workspace of an in-memory start, with its first admin stored just after the start
// returns: the admin's bcrypt hash (tens of milliseconds at the default cost) was most of a start's
// own time, and a server that only answers /health, or a test that signs in later, need not wait
// for it. Until the admin is stored, every request to that workspace waits for it (a sign-in right
// after the start succeeds; nothing sees a workspace without its admin), and so do the in-process
// helpers (snapshot, restore, reset) and the stop. The plain password is held only in the closure
// that hashes it, as it was before. On disk, or with a seed, the admin is stored before the start
// returns: a crash must never leave a data folder whose workspace has no admin.
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import { parseBody } from '../../core/validate.js';
import { createFirstAdmin, FirstAdminInput } from '../users/index.js';
import { createWorkspace, generatePassword, type NewWorkspace } from './service.js';

/** Resolves once the workspace's first admin is stored (undefined: it is, or it never was
 *  deferred); rejects with the reason it could not be. */
export function firstAdminStored(ctx: AppContext, ws: Workspace): Promise<void> | undefined {
  return ctx.state.workspaces.firstAdmins.get(ws);
}

/** Calls `next` when the workspace's first admin is stored (at once, in the same turn, when it
 *  is), or `next(err)` when it could not be: for request handlers. */
export function afterFirstAdmin(ctx: AppContext, ws: Workspace, next: (err?: unknown) => void): void {
  const wait = ctx.state.workspaces.firstAdmins.get(ws);
  if (wait) wait.then(() => next(), next);
  else next();
}

/** Creates the start's first workspace and its admin; with `defer`, the admin is stored in the
 *  background (see above) and the workspace returned at once. */
export async function createFirstWorkspace(ctx: AppContext, input: NewWorkspace, defer: boolean): Promise<{ ws: Workspace; generatedPassword?: string }> {
  if (!defer) return createWorkspace(ctx, input);
  // The same checks as createWorkspace, before anything is created.
  const given = parseBody(FirstAdminInput, { ...input.admin, email: input.admin?.email ?? ctx.config.adminEmail }, 'admin');
  const generatedPassword = given.password === undefined ? generatePassword() : undefined;
  const ws = await ctx.registry.create(input._id, input.name ?? input._id);
  const pending = ctx.state.workspaces.firstAdmins;
  const stored = createFirstAdmin(ctx, ws, { ...given, password: given.password ?? generatedPassword! }).then(() => { pending.delete(ws); });
  // In memory nothing but a bug can fail here; if it does, requests to the workspace get the error
  // (and it is not an unhandled rejection when none comes).
  stored.catch(() => undefined);
  pending.set(ws, stored);
  return { ws, ...(generatedPassword ? { generatedPassword } : {}) };
}
