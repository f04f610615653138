// Named snapshots of a workspace: taken and restored whole. Held in memory for speed; a disk
// workspace also keeps each one under `<workspace>/snapshots/<name>/` (state.jsonl, files/,
// meta.json written last as the commit mark), so they survive a restart. Where the engine keeps
// snapshots itself (PostgreSQL: table copies and the settings in the database, one list for
// every process; storage/workspace-backend.ts KeptSnapshots), the module asks it, and copies the
// uploaded files under `<files>/<workspace>/snapshots/<uuid>/`.
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppContext } from '../context.js';
import { ApiError } from '../../core/errors.js';
import type { Doc } from '../../storage/query.js';
import { docFromJson, docToJson } from '../../storage/doc-json.js';
import { CONTROL_SETTINGS, type Workspace, type WorkspaceSettings } from '../../storage/workspace.js';
import { applyState, captureState, exclusive, isCollectionStore, UNTOUCHED_STORES, whileBusy, type WorkspaceState } from './state.js';
import { applyFiles, copyFilesTo, fileSetIn } from './files.js';
import { NotFoundError, UniqueViolationError } from '../../storage/errors.js';
import type { KeptSnapshots } from '../../storage/workspace-backend.js';

export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface SnapshotInfo {
  name: string;
  createdAt: string;
  /** Records across all collections. */
  records: number;
  collections: number;
  users: number;
  files: number;
}

export interface Entry { info: SnapshotInfo; state?: WorkspaceState }

/** A workspace's snapshots on disk by name. */
export type Catalog = Map<string, Entry>;

const folderOf = (ws: Workspace, name?: string) => join(ws.dir!, 'snapshots', ...(name ? [name] : []));

/** The snapshots of a workspace (read from disk once, then kept in memory). */
function catalog(ctx: AppContext, ws: Workspace): Promise<Catalog> {
  const { catalogs } = ctx.state.workspaces;
  let c = catalogs.get(ws);
  if (!c) {
    c = (async () => {
      const map: Catalog = new Map();
      if (!ws.dir) return map;
      for (const name of await readdir(folderOf(ws)).catch(() => [] as string[])) {
        try {
          const info = JSON.parse(await readFile(join(folderOf(ws, name), 'meta.json'), 'utf8')) as SnapshotInfo;
          if (info.name === name) map.set(name, { info });
        } catch {
          await rm(folderOf(ws, name), { recursive: true, force: true }); // never committed
        }
      }
      return map;
    })();
    catalogs.set(ws, c);
  }
  return c;
}

export async function listSnapshots(ctx: AppContext, ws: Workspace): Promise<SnapshotInfo[]> {
  const kept = ws.backend.snapshots;
  if (kept) {
    return (await kept.list<Omit<SnapshotInfo, 'name' | 'createdAt'>>())
      .map((e) => ({ name: e.name, createdAt: e.createdAt, records: 0, collections: 0, users: 0, files: 0, ...e.info }));
  }
  return [...(await catalog(ctx, ws)).values()].map((e) => e.info).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.name.localeCompare(b.name));
}

function infoOf(name: string, state: WorkspaceState): SnapshotInfo {
  let records = 0;
  for (const [store, docs] of state.stores) if (isCollectionStore(store)) records += docs.length;
  return {
    // The schema's collections, whether or not they ever held a record (an empty one has no store).
    name, createdAt: new Date().toISOString(), records, collections: state.settings.collections.length,
    users: state.stores.get('users')?.length ?? 0,
    files: state.stores.get('files')?.length ?? 0,
  };
}

function assertName(name: string): void {
  if (!SNAPSHOT_NAME.test(name)) throw ApiError.invalidField('name', 'format', "'name' must match ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$");
}

/** Takes a snapshot; 409 when the name is taken, unless `overwrite`. */
export function takeSnapshot(ctx: AppContext, ws: Workspace, name: string, overwrite = false): Promise<SnapshotInfo> {
  assertName(name);
  const kept = ws.backend.snapshots;
  if (kept) return exclusive(ctx, ws, () => takeKept(ctx, ws, kept, name, overwrite));
  return exclusive(ctx, ws, async () => {
    const snaps = await catalog(ctx, ws);
    if (snaps.has(name) && !overwrite) throw ApiError.conflict(`Snapshot '${name}' already exists`, { field: 'name' });
    if (ws.dir) {
      await rm(folderOf(ws, name), { recursive: true, force: true });
      snaps.delete(name);
    }
    // Capture while the workspace is quiet, so the snapshot is one moment of it.
    const state = await whileBusy(ctx, ws, async () => {
      const s = await captureState(ctx, ws, { copyDocs: true, files: !ws.dir });
      if (ws.dir) s.files = await copyFilesTo(ctx, ws, join(folderOf(ws, name), 'files'));
      return s;
    });
    const info = infoOf(name, state);
    if (ws.dir) await writeSnapshot(folderOf(ws, name), info, state);
    snaps.set(name, { info, state });
    return info;
  });
}

/** Restores a snapshot: 404 when there is none by that name. */
export function restoreSnapshot(ctx: AppContext, ws: Workspace, name: string): Promise<SnapshotInfo> {
  const kept = ws.backend.snapshots;
  if (kept) return exclusive(ctx, ws, () => restoreKept(ctx, ws, kept, name));
  return exclusive(ctx, ws, async () => {
    const entry = (await catalog(ctx, ws)).get(name);
    if (!entry) throw ApiError.notFound('Snapshot', name);
    entry.state ??= await readSnapshot(folderOf(ws, name));
    const state = entry.state;
    await whileBusy(ctx, ws, () => applyState(ctx, ws, state));
    return entry.info;
  });
}

/** The content of an embedded snapshot (read from disk on first use; never mutated): what a
 *  fork of it copies. 404 when there is none by that name. */
export async function snapshotContent(ctx: AppContext, ws: Workspace, name: string): Promise<WorkspaceState> {
  const entry = (await catalog(ctx, ws)).get(name);
  if (!entry) throw ApiError.notFound('Snapshot', name);
  entry.state ??= await readSnapshot(folderOf(ws, name));
  return entry.state;
}

/** Where a snapshot kept by the engine has its copies of the uploaded files (its recorded folder). */
export const keptSnapshotFiles = (ws: Workspace, filesDir: string) => join(keptFilesFolder(ws, filesDir), 'files');

export function deleteSnapshot(ctx: AppContext, ws: Workspace, name: string): Promise<void> {
  const kept = ws.backend.snapshots;
  if (kept) {
    return exclusive(ctx, ws, async () => {
      const filesDir = await keptErrors(name, () => kept.delete(name));
      if (filesDir) ctx.state.workspaces.keptFileSets.delete(join(keptFilesFolder(ws, filesDir), 'files'));
      if (filesDir) await rm(keptFilesFolder(ws, filesDir), { recursive: true, force: true });
    });
  }
  return exclusive(ctx, ws, async () => {
    const snaps = await catalog(ctx, ws);
    if (!snaps.has(name)) throw ApiError.notFound('Snapshot', name);
    snaps.delete(name);
    if (ws.dir) await rm(folderOf(ws, name), { recursive: true, force: true });
  });
}

async function writeSnapshot(folder: string, info: SnapshotInfo, state: WorkspaceState): Promise<void> {
  await mkdir(folder, { recursive: true });
  const fh = await open(join(folder, 'state.jsonl'), 'w');
  try {
    let chunk = docToJson({ settings: state.settings }) + '\n';
    for (const [s, docs] of state.stores) {
      chunk += docToJson({ store: s }) + '\n';
      for (const d of docs) {
        chunk += docToJson(d) + '\n';
        if (chunk.length > 1 << 20) { await fh.write(chunk); chunk = ''; }
      }
    }
    await fh.write(chunk);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await writeFile(join(folder, 'meta.json'), JSON.stringify(info));
}

async function readSnapshot(folder: string): Promise<WorkspaceState> {
  const text = await readFile(join(folder, 'state.jsonl'), 'utf8');
  const stores = new Map<string, Doc[]>();
  let settings: WorkspaceSettings | undefined;
  let current: Doc[] | undefined;
  for (const line of text.split('\n')) {
    if (!line) continue;
    const obj = docFromJson(line) as Record<string, unknown>;
    if (current && typeof obj._id === 'string') current.push(obj as Doc);
    else if (typeof obj.store === 'string') stores.set(obj.store, (current = []));
    else if (obj.settings) settings = obj.settings as WorkspaceSettings;
  }
  if (!settings) throw ApiError.conflict('The snapshot on disk is damaged');
  return { settings, stores, files: await fileSetIn(join(folder, 'files')) };
}

// ---- Kept by the engine ----

type Figures = Omit<SnapshotInfo, 'name' | 'createdAt'>;

/** A kept snapshot's copies of the uploaded files (folder named by a fresh uuid, so that
 *  overwriting a snapshot never touches the folder of the one it replaces until it committed). */
const keptFilesFolder = (ws: Workspace, filesDir: string) => join(ws.dir!, 'snapshots', filesDir);

/** The store layer's errors as the API's (409 name taken, 404 unknown snapshot). */
async function keptErrors<T>(name: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof UniqueViolationError) throw ApiError.conflict(`Snapshot '${name}' already exists`, { field: 'name' });
    if (err instanceof NotFoundError) throw ApiError.notFound('Snapshot', name);
    throw err;
  }
}

async function takeKept(ctx: AppContext, ws: Workspace, kept: KeptSnapshots, name: string, overwrite: boolean): Promise<SnapshotInfo> {
  // The cheap refusal first: no files copied for a name that is taken (the engine checks again).
  if (!overwrite && await kept.has(name)) throw ApiError.conflict(`Snapshot '${name}' already exists`, { field: 'name' });
  const filesDir = randomUUID();
  const folder = keptFilesFolder(ws, filesDir);
  // Quiet in this process while the files are copied and the tables with them.
  return whileBusy(ctx, ws, async () => {
    try {
      await copyFilesTo(ctx, ws, join(folder, 'files'));
      const snap = await keptErrors(name, () => kept.take<Figures>(name, {
        overwrite, skip: UNTOUCHED_STORES, filesDir, keepSettings: CONTROL_SETTINGS,
        describe: (counts, settings) => {
          let records = 0;
          for (const [store, n] of Object.entries(counts)) if (isCollectionStore(store)) records += n;
          return { records, collections: settings?.collections.length ?? 0, users: counts.users ?? 0, files: counts.files ?? 0 };
        },
      }));
      if (snap.replacedFilesDir) await rm(keptFilesFolder(ws, snap.replacedFilesDir), { recursive: true, force: true });
      return { name, createdAt: snap.createdAt, ...snap.info! };
    } catch (err) {
      await rm(folder, { recursive: true, force: true });
      throw err;
    }
  });
}

async function restoreKept(ctx: AppContext, ws: Workspace, kept: KeptSnapshots, name: string): Promise<SnapshotInfo> {
  return whileBusy(ctx, ws, async () => {
    const out = await keptErrors(name, () => kept.restore<Figures>(name, { skip: UNTOUCHED_STORES, keepSettings: CONTROL_SETTINGS }));
    if (out.settings && JSON.stringify(out.settings) !== JSON.stringify(ws.settings.data)) ws.settings.adopt(out.settings);
    if (out.filesDir) {
      const folder = join(keptFilesFolder(ws, out.filesDir), 'files');
      // File sets by folder are kept, so that a restore rewrites only the files changed since the last.
      const { keptFileSets } = ctx.state.workspaces;
      let set = keptFileSets.get(folder);
      if (!set) { set = await fileSetIn(folder); keptFileSets.set(folder, set); }
      await applyFiles(ctx, ws, set);
    }
    await ctx.registry.notifyReplaced(ws);
    return { name, createdAt: out.createdAt, records: 0, collections: 0, users: 0, files: 0, ...out.info };
  });
}
