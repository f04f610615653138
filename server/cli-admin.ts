// `homebase admin`: signs in as a workspace's admin without its password (the generated one is
// printed on the first start only). Asks the running server through the console API (token read
// from the data folder, or given); with no server running, works on the data folder itself
// under its lock. Prints an access token, and with --reset-password sets and prints a new
// password (the admin's other sessions end).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { acquireLock } from './storage/lock.js';
import type { Registry } from './storage/registry.js';
import { openDataFolder } from './storage/open-storage.js';
import { EventBus } from './core/bus.js';
import { resolveConfig } from './core/config.js';
import type { AppContext } from './modules/context.js';
import { createContext } from './modules/server-state.js';
import { generatePassword, mintAdminToken } from './modules/workspaces/index.js';
import { changeUser, createUser } from './modules/users/index.js';
import { findUser, type UserDoc } from './modules/users/index.js';

export class AdminCommandError extends Error {}

export interface AdminOptions {
  url: string;
  data: string;
  consoleToken?: string;
  workspace: string;
  resetPassword: boolean;
  password?: string;
}

export interface AdminResult {
  workspace: string;
  email: string;
  token: string;
  expiresIn: number;
  /** Set when the password was reset, or when an admin had to be created. */
  password?: string;
  /** The workspace had no admin (a dump imported before imports added one): one was created. */
  created?: boolean;
  via: 'server' | 'folder';
}

export async function runAdmin(o: AdminOptions): Promise<AdminResult> {
  if (o.password !== undefined && o.password.length < 8) throw new AdminCommandError('--password must have at least 8 characters');
  const base = o.url.replace(/\/+$/, '').replace(/\/api$/, '');
  if (await serverAnswers(base)) return viaServer(base, o);
  if (!existsSync(join(o.data, 'homebase.json'))) {
    throw new AdminCommandError(`No server answers at ${base} and ${o.data} is not a Homebase data folder. Start the server (homebase serve), or pass --url and --data`);
  }
  return viaFolder(o);
}

async function serverAnswers(base: string): Promise<boolean> {
  try {
    const res = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(2000) });
    return res.ok && (await res.json() as { status?: string }).status === 'ok';
  } catch {
    return false;
  }
}

function folderConsoleToken(data: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(data, 'homebase.json'), 'utf8')) as { consoleToken?: string }).consoleToken || undefined;
  } catch {
    return undefined;
  }
}

async function call(method: string, url: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: any;
  try { parsed = JSON.parse(text); } catch { parsed = undefined; }
  return { status: res.status, body: parsed };
}

async function viaServer(base: string, o: AdminOptions): Promise<AdminResult> {
  const consoleToken = o.consoleToken ?? folderConsoleToken(o.data);
  if (!consoleToken) {
    throw new AdminCommandError(`A server answers at ${base}, but no console token was found in ${o.data}: pass --console-token (printed by homebase serve) or --data with the server's folder`);
  }
  const minted = await call('POST', `${base}/api/workspaces/${encodeURIComponent(o.workspace)}/token`, consoleToken);
  if (minted.status === 401) {
    throw new AdminCommandError(`The server at ${base} refused the console token${o.consoleToken ? '' : ` of ${o.data}`}: is it that server's data folder? Pass --data or --console-token`);
  }
  if (minted.status === 409) {
    throw new AdminCommandError(`${minted.body?.error?.message ?? 'The workspace has no administrator'}: stop the server and run this command again; on the data folder it creates one`);
  }
  if (minted.status !== 200) throw new AdminCommandError(`The server at ${base} answered ${minted.status}: ${minted.body?.error?.message ?? 'no token'}`);
  const { token, user } = minted.body as { token: string; user: { _id: string; email: string } };
  const result: AdminResult = { workspace: o.workspace, email: user.email, token, expiresIn: lifetime(token), via: 'server' };
  if (o.resetPassword) {
    const password = o.password ?? generatePassword();
    const changed = await call('PUT', `${base}/api/app/${encodeURIComponent(o.workspace)}/users/${encodeURIComponent(user._id)}`, token, { password });
    if (changed.status !== 200) throw new AdminCommandError(`Could not set the password: ${changed.body?.error?.message ?? changed.status}`);
    result.password = password;
  }
  return result;
}

/** Seconds from issue to expiry of a JWT (the server's --token-ttl). */
function lifetime(token: string): number {
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { iat: number; exp: number };
    return claims.exp - claims.iat;
  } catch {
    return 900;
  }
}

async function viaFolder(o: AdminOptions): Promise<AdminResult> {
  const release = acquireLock(o.data);
  let registry: Registry | undefined;
  try {
    const config = resolveConfig({ data: o.data, compactEvery: 0 });
    registry = await openDataFolder(o.data, undefined, 0);
    const ctx: AppContext = createContext({ config, registry, bus: new EventBus(), upgradeHandlers: [], closers: [] });
    const ws = registry.get(o.workspace);
    if (!ws) throw new AdminCommandError(`No workspace '${o.workspace}' in ${o.data} (it has: ${registry.list().map((w) => w._id).join(', ') || 'none'})`);
    let password: string | undefined;
    let created = false;
    const admins = (await (await ws.store('users')).findBy('role', 'admin')) as UserDoc[];
    if (admins.length === 0) {
      // A way out of a workspace nobody can administer (a dump imported without an admin).
      password = o.password ?? config.adminPassword ?? generatePassword();
      const admin = await createUser(ctx, ws, { email: config.adminEmail, password, name: 'Admin', role: 'admin' });
      await ws.settings.update((d) => { d.firstAdminId = admin._id; });
      created = true;
    }
    const login = await mintAdminToken(ctx, ws);
    if (o.resetPassword && !created) {
      password = o.password ?? generatePassword();
      await changeUser(ctx, ws, login.user._id, { password }, { keepSessionId: undefined });
      // Changing the password ended every session, the new one too: mint again.
      const again = await mintAdminToken(ctx, ws);
      return { workspace: o.workspace, email: (await findUser(ws, again.user._id))!.email, token: again.token, expiresIn: config.tokenTtl, password, via: 'folder' };
    }
    return { workspace: o.workspace, email: login.user.email, token: login.token, expiresIn: config.tokenTtl, ...(password ? { password } : {}), ...(created ? { created } : {}), via: 'folder' };
  } finally {
    await registry?.close();
    release();
  }
}
