// Workspace management for the console API: creation with its first admin, deletion, and
// admin token minting.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import { ApiError } from '../../core/errors.js';
import { insertUser, findUser, publicUser, type UserDoc } from '../users/repo.js';
import { createSession, type LoginResult } from '../auth/sessions.js';
import type { Workspace } from '../../storage/workspace.js';

export interface NewWorkspace { _id: string; name?: string; admin?: { email?: string; password?: string; name?: string } }

/** Creates a workspace and its admin user; returns the admin's password when it was generated. */
export async function createWorkspace(ctx: AppContext, input: NewWorkspace): Promise<{ ws: Workspace; admin: UserDoc; generatedPassword?: string }> {
  const email = input.admin?.email ?? ctx.config.adminEmail;
  const generatedPassword = input.admin?.password ? undefined : generatePassword();
  const password = input.admin?.password ?? generatedPassword!;
  if (password.length < 8) throw ApiError.invalidField('admin.password', 'too_short', 'The admin password must have at least 8 characters');
  const ws = await ctx.registry.create(input._id, input.name ?? input._id);
  try {
    const admin = await insertUser(ws, { email, password, name: input.admin?.name ?? 'Admin', role: 'admin' }, ctx.config.bcryptCost);
    await ws.settings.update((d) => { d.firstAdminId = admin._id; });
    ctx.bus.publish({ type: 'user.created', app: ws.id, data: publicUser(admin) as unknown as Record<string, unknown> });
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
    admin = (await ws.store('users')).findBy('role', 'admin')[0] as UserDoc | undefined;
  }
  if (!admin) throw ApiError.conflict(`Workspace '${ws.id}' has no administrator`);
  return createSession(ws, admin, ctx.config);
}

export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}
