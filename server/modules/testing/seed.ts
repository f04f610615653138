// Seeding at start (`homebase serve --seed fixtures.json`, `startServer({ seed })`): a dump,
// given as a path or an object, loaded into the default workspace when that workspace is still
// empty (a fresh or in-memory one). A workspace that already holds data is left as it is, so
// restarting a development server never wipes its work; `homebase import` replaces on purpose.
import { readFile } from 'node:fs/promises';
import type { AppContext } from '../../core/context.js';
import { ApiError } from '../../core/errors.js';
import { logger } from '../../core/logger.js';
import type { Workspace } from '../../storage/workspace.js';
import { importWorkspace, type ImportSummary } from './dump.js';

/** Nothing but its first admin (and sessions): no collections, other users or other documents. */
export async function isEmptyWorkspace(ws: Workspace): Promise<boolean> {
  if (ws.settings.data.collections.length > 0) return false;
  for (const name of await ws.storeNames()) {
    if (name === 'sessions') continue;
    const size = (await ws.store(name)).size;
    if (name === 'users' ? size > 1 : size > 0) return false;
  }
  return true;
}

/** Reads a seed; a bad file or dump stops the start with a message naming the problem. */
export async function readSeed(seed: string | Record<string, unknown>): Promise<unknown> {
  if (typeof seed !== 'string') return seed;
  let text: string;
  try { text = await readFile(seed, 'utf8'); } catch (err) { throw new Error(`Cannot read the seed file ${seed}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`); }
  try { return JSON.parse(text); } catch { throw new Error(`The seed file ${seed} is not valid JSON`); }
}

/** Loads the seed into the workspace if it is empty; returns what was imported, or undefined. */
export async function applySeed(ctx: AppContext, ws: Workspace, seed: string | Record<string, unknown>): Promise<ImportSummary | undefined> {
  const dump = await readSeed(seed);
  if (!(await isEmptyWorkspace(ws))) {
    logger.info({ workspace: ws.id }, 'seed skipped: the workspace already holds data');
    return undefined;
  }
  try {
    return await importWorkspace(ctx, ws, dump);
  } catch (err) {
    if (err instanceof ApiError) {
      const where = typeof seed === 'string' ? `The seed file ${seed}` : 'The seed';
      throw new Error(`${where} is not a valid dump: ${err.message}`);
    }
    throw err;
  }
}
