// `homebase export` and `homebase import` on a data folder with no server running: they take
// the folder's lock (a running server on it makes them refuse), open its registry, and work on
// one workspace through the same export / import code as the console API.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { acquireLock } from '../../storage/lock.js';
import type { Registry } from '../../storage/registry.js';
import { openDataFolder } from '../../storage/open-storage.js';
import { EventBus } from '../../core/bus.js';
import { ApiError, StorageFailure } from '../../core/errors.js';
import { resolveConfig } from '../../core/config.js';
import type { AppContext } from '../context.js';
import { createContext } from '../server-state.js';
import { exportWorkspace, importWorkspace, type ImportSummary } from './dump.js';
import type { Dump } from './dump-format.js';
import { generatePassword } from './service.js';

/** A failure to report in one line (no stack): bad dump, unknown workspace, missing folder. */
export class OfflineError extends Error {}

export async function withDataFolder<T>(dataDir: string, fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const release = acquireLock(dataDir);
  let registry: Registry | undefined;
  try {
    const config = resolveConfig({ data: dataDir, compactEvery: 0 });
    registry = await openDataFolder(dataDir, undefined, 0);
    const ctx: AppContext = createContext({ config, registry, bus: new EventBus(), upgradeHandlers: [], closers: [] });
    return await fn(ctx);
  } catch (err) {
    if (err instanceof ApiError || err instanceof StorageFailure) throw new OfflineError(err.message);
    throw err;
  } finally {
    await registry?.close();
    release();
  }
}

export async function exportFromFolder(dataDir: string, workspace: string): Promise<Dump> {
  if (!existsSync(join(dataDir, 'homebase.json'))) throw new OfflineError(`${dataDir} is not a Homebase data folder`);
  return withDataFolder(dataDir, async (ctx) => {
    const ws = ctx.registry.get(workspace);
    if (!ws) throw new OfflineError(`No workspace '${workspace}' in ${dataDir} (it has: ${ctx.registry.list().map((w) => w._id).join(', ') || 'none'})`);
    return exportWorkspace(ctx, ws);
  });
}

/** Replaces a workspace's content with a dump; creates the workspace (and the folder) if needed.
 *  `source` names the dump in the message of a bad one ("The dump file fixtures.json"). */
export async function importIntoFolder(dataDir: string, workspace: string, dump: unknown, source = 'The dump'): Promise<ImportSummary & { created: boolean; addedAdmin?: { email: string; password: string } }> {
  mkdirSync(dataDir, { recursive: true });
  return withDataFolder(dataDir, async (ctx) => {
    const existing = ctx.registry.get(workspace);
    const name = (dump as Dump)?.workspace?.name;
    const ws = existing ?? await ctx.registry.create(workspace, typeof name === 'string' && name ? name : workspace);
    try {
      // A dump without an administrator gets one (printed by the CLI), so that the workspace
      // can still be administered and the console can mint tokens for it.
      const newAdmin = { email: ctx.config.adminEmail, password: ctx.config.adminPassword ?? generatePassword() };
      return { ...(await importWorkspace(ctx, ws, dump, { newAdmin })), created: !existing };
    } catch (err) {
      if (!existing) await ctx.registry.delete(workspace).catch(() => undefined);
      if (err instanceof ApiError && err.code === 'VALIDATION_ERROR') throw new OfflineError(`${source} is not a valid dump: ${err.message}`);
      throw err;
    }
  });
}
