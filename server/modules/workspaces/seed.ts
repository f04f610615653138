// Seeding at start (`homebase serve --seed fixtures.json`, `startServer({ seed })`): a dump,
// given as a path or an object, loaded into the default workspace when that workspace is still
// empty (a fresh or in-memory one). A workspace that already holds data is left as it is, so
// restarting a development server never wipes its work; `homebase import` replaces on purpose.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { AppContext } from '../context.js';
import { ApiError, StorageFailure } from '../../core/errors.js';
import { logger } from '../../core/logger.js';
import type { Workspace } from '../../storage/workspace.js';
import { importWorkspace, type ImportSummary } from './dump.js';

/** Nothing but its first admin (and sessions): no collections, other users or other documents. */
export async function isEmptyWorkspace(ws: Workspace): Promise<boolean> {
  if (ws.settings.data.collections.length > 0) return false;
  for (const name of await ws.storeNames()) {
    if (name === 'sessions') continue;
    const size = await (await ws.store(name)).count();
    if (name === 'users' ? size > 1 : size > 0) return false;
  }
  return true;
}

import { DumpFileError } from '../../core/dump-file-error.js';

export { DumpFileError };

const REASONS: Record<string, string> = { ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'it is a folder', EPERM: 'permission denied' };

/** Reads a seed (a path, resolved against the current directory, or a dump object); a file that
 *  cannot be read or is not JSON throws a DumpFileError naming it. `what` names the file in the
 *  message ("seed file" for --seed, "dump file" for `homebase import`). */
export async function readSeed(seed: string | Record<string, unknown>, what = 'seed file'): Promise<unknown> {
  if (typeof seed !== 'string') return seed;
  const where = seed === resolve(seed) ? seed : `${seed} (${resolve(seed)})`;
  let text: string;
  try {
    text = await readFile(seed, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    throw new DumpFileError(`Cannot read the ${what} ${where}: ${REASONS[code] ?? (code || (err as Error).message)}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new DumpFileError(`The ${what} ${where} is not valid JSON: ${(err as Error).message.split('\n')[0]}`);
  }
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
    if (err instanceof ApiError || err instanceof StorageFailure) {
      const where = typeof seed === 'string' ? `The seed file ${seed}` : 'The seed';
      throw new DumpFileError(`${where} is not a valid dump: ${err.message}`);
    }
    throw err;
  }
}
