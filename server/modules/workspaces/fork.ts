// A fork: a new workspace holding a copy of another (or of one of its snapshots), made by the
// storage engine itself (Registry.fork: shared documents in memory, file copies on disk, table
// copies in one transaction on PostgreSQL), never through an export and an import. Copied:
// records, users, files, settings, webhooks, scenarios, secrets, chats. Left out: what is
// operational (sessions, reset tokens, the outbox, delivery queues and logs, executions, login
// attempts), so the source's tokens, reset codes and emails mean nothing in the fork. The
// fork gets a fresh signing key; its encryption key is the source's (sealed secrets stay
// readable).
import { copyFile, mkdir } from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { ApiError } from '../../core/errors.js';
import { IdSchema } from '../../core/ids.js';
import { NotFoundError } from '../../storage/errors.js';
import type { Workspace } from '../../storage/workspace.js';
import { OPERATIONAL_STORES } from './dump-format.js';
import { exclusive } from './state.js';
import { applyFiles, fileSetIn, filesDirOf, listFiles } from './files.js';
import { keptSnapshotFiles, snapshotContent } from './snapshots.js';
import { MAX_TTL_SECONDS, trackExpiry } from './fork-ttl.js';

export const ForkBody = z.object({
  _id: IdSchema.optional(),
  snapshot: z.string().min(1).max(64).optional(),
  /** Seconds without a request after which the fork is deleted. */
  ttl: z.number().positive().max(MAX_TTL_SECONDS).optional(),
});
export type ForkInput = z.infer<typeof ForkBody>;

export interface ForkResult {
  _id: string;
  name: string;
  createdAt: string;
  source: string;
  snapshot?: string;
  ttl?: number;
}

/** A free id for a fork of `source` when none is given: `<source>-fork-<6 random characters>`. */
function forkId(ctx: AppContext, source: string): string {
  for (;;) {
    const id = `${source.slice(0, 50)}-fork-${randomBytes(6).toString('base64url').replace(/[^A-Za-z0-9]/g, 'x').slice(0, 6).toLowerCase()}`;
    if (!ctx.registry.get(id)) return id;
  }
}

/** Forks `source`; 404 for an unknown snapshot, 409 for a taken `_id`. */
export async function forkWorkspace(ctx: AppContext, source: Workspace, input: ForkInput): Promise<ForkResult> {
  const id = input._id ?? forkId(ctx, source.id);
  const ws = await exclusive(ctx, source, async () => {
    let snapshot: Parameters<typeof ctx.registry.fork>[2]['snapshot'];
    let files: (fork: Workspace, snapshotFilesDir?: string | null) => Promise<void>;
    if (input.snapshot !== undefined && !source.backend.snapshots) {
      const state = await snapshotContent(ctx, source, input.snapshot);
      snapshot = state;
      files = async (fork) => { if (state.files?.size) await applyFiles(ctx, fork, state.files); };
    } else {
      snapshot = input.snapshot;
      files = async (fork, snapshotFilesDir) => {
        if (snapshotFilesDir) {
          const set = await fileSetIn(keptSnapshotFiles(source, snapshotFilesDir));
          if (set.size) await applyFiles(ctx, fork, set);
        } else if (input.snapshot === undefined) {
          await copyFiles(ctx, source, fork);
        }
      };
    }
    try {
      return await ctx.registry.fork(source, id, {
        name: id, skip: OPERATIONAL_STORES, snapshot,
        prepare: (fork, copied) => files(fork, copied.snapshotFilesDir),
      });
    } catch (err) {
      if (err instanceof NotFoundError && input.snapshot !== undefined) throw ApiError.notFound('Snapshot', input.snapshot);
      throw err;
    }
  });
  if (input.ttl !== undefined) await trackExpiry(ctx, ws, input.ttl);
  return {
    _id: ws.id, name: ws.settings.data.name, createdAt: ws.settings.data.createdAt, source: source.id,
    ...(input.snapshot !== undefined ? { snapshot: input.snapshot } : {}),
    ...(input.ttl !== undefined ? { ttl: input.ttl } : {}),
  };
}

/** Copies the source's uploaded files into the fork's files folder (reflinks where the file
 *  system has them), when the fork holds any file object at all. */
async function copyFiles(ctx: AppContext, source: Workspace, fork: Workspace): Promise<void> {
  if (!(await fork.storeNames()).includes('files') || (await (await fork.store('files')).count()) === 0) return;
  const from = await filesDirOf(ctx, source);
  const to = await filesDirOf(ctx, fork);
  for (const rel of (await listFiles(from)).keys()) {
    const target = join(to, ...rel.split('/'));
    await mkdir(dirname(target), { recursive: true });
    await copyFile(join(from, ...rel.split('/')), target, fsConstants.COPYFILE_FICLONE);
  }
}
