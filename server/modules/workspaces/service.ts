// Workspace management for the console API: creation with its first admin, deletion, and
// admin token minting.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import { ApiError } from '../../core/errors.js';
import { findUser, type UserDoc } from '../users/index.js';
import { createFirstAdmin } from '../users/index.js';
import { FirstAdminInput } from '../users/index.js';
import { parseBody } from '../../core/validate.js';
import { createSession, type LoginResult } from '../auth/index.js';
import type { Workspace } from '../../storage/workspace.js';

export interface NewWorkspace { _id: string; name?: string; admin?: { email?: string; password?: string; name?: string } }

/** Creates a workspace and its first admin (through the users service); returns the admin's
 *  password when it was generated. The admin is checked with the users module's rules before
 *  anything is created (422 naming `admin.email` / `admin.password`). */
export async function createWorkspace(ctx: AppContext, input: NewWorkspace): Promise<{ ws: Workspace; admin: UserDoc; generatedPassword?: string }> {
  const given = parseBody(FirstAdminInput, { ...input.admin, email: input.admin?.email ?? ctx.config.adminEmail }, 'admin');
  const generatedPassword = given.password === undefined ? generatePassword() : undefined;
  const ws = await ctx.registry.create(input._id, input.name ?? input._id);
  try {
    const admin = await createFirstAdmin(ctx, ws, { ...given, password: given.password ?? generatedPassword! });
    return { ws, admin, ...(generatedPassword ? { generatedPassword } : {}) };
  } catch (err) {
    await ctx.registry.delete(input._id).catch(() => undefined);
    throw err;
  }
}

/** An admin login result for the console: a session of the workspace's first admin (or any admin). */
export async function mintAdminToken(ctx: AppContext, ws: Workspace): Promise<LoginResult> {
  let admin = ws.settings.data.firstAdminId ? await findUser(ws, ws.settings.data.firstAdminId) : undefined;
  if (!admin || admin.role !== 'admin') {
    admin = (await (await ws.store('users')).findBy('role', 'admin'))[0] as UserDoc | undefined;
  }
  if (!admin) throw ApiError.conflict(`Workspace '${ws.id}' has no administrator`);
  return createSession(ctx, ws, admin);
}

export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}
