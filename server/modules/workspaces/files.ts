// Uploaded file bytes as part of a workspace's state: finding the workspace's files folder,
// reading it into a set, copying it aside (disk snapshots), and making the folder match a set
// again, rewriting only the files that changed since they were last put there.
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import type { Workspace } from '../../storage/workspace.js';
import type { AppContext } from '../context.js';
import { storageOf } from '../storage/index.js';

/** Where a file's bytes come from: held in memory, or a copy on disk (a disk snapshot). */
export type FileSource = { data: Buffer } | { path: string };
/** Path relative to the files folder (`/`-separated) → bytes. */
export type FileSet = Map<string, FileSource>;

/** The folder of a workspace's finished uploads (one `<id>` file each), as the storage module
 *  keeps it: under the workspace folder, or a temporary folder for an in-memory workspace.
 *  Unfinished tus uploads live elsewhere and are not part of a workspace's state. */
export async function filesDirOf(ctx: AppContext, ws: Workspace): Promise<string> {
  return (await storageOf(ctx).area(ws)).files;
}

/** Signature of the live file last written from a source: unchanged → no rewrite on restore.
 *  Not server state: bookkeeping of the source object itself, gone with it. */
const written = new WeakMap<FileSource, string>();
const signature = (s: Stats) => `${s.size}:${s.mtimeMs}:${s.ino}`;

/** Every regular file under `dir`, by relative path. */
export async function listFiles(dir: string): Promise<Map<string, Stats>> {
  const out = new Map<string, Stats>();
  const walk = async (sub: string) => {
    const entries = await readdir(join(dir, sub), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const rel = sub ? `${sub}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(rel);
      else if (e.isFile()) out.set(rel, await stat(join(dir, rel)));
    }
  };
  await walk('');
  return out;
}

const abs = (dir: string, rel: string) => join(dir, ...rel.split('/'));

/** Reads the workspace's files into memory. */
export async function captureFiles(ctx: AppContext, ws: Workspace): Promise<FileSet> {
  const set: FileSet = new Map();
  const dir = await filesDirOf(ctx, ws);
  for (const [rel, st] of await listFiles(dir)) {
    const src: FileSource = { data: await readFile(abs(dir, rel)) };
    written.set(src, signature(st));
    set.set(rel, src);
  }
  return set;
}

/** Copies the workspace's files into `target` (a snapshot folder); the sources point there. */
export async function copyFilesTo(ctx: AppContext, ws: Workspace, target: string): Promise<FileSet> {
  const set: FileSet = new Map();
  const dir = await filesDirOf(ctx, ws);
  for (const [rel, st] of await listFiles(dir)) {
    const to = abs(target, rel);
    await mkdir(dirname(to), { recursive: true });
    await copyFile(abs(dir, rel), to);
    const src: FileSource = { path: to };
    written.set(src, signature(st));
    set.set(rel, src);
  }
  return set;
}

/** A file set over a folder written earlier by copyFilesTo. */
export async function fileSetIn(folder: string): Promise<FileSet> {
  const set: FileSet = new Map();
  for (const rel of (await listFiles(folder)).keys()) set.set(rel, { path: abs(folder, rel) });
  return set;
}

/** Makes the workspace's files folder hold exactly `set`. */
export async function applyFiles(ctx: AppContext, ws: Workspace, set: FileSet): Promise<void> {
  const dir = await filesDirOf(ctx, ws);
  const current = await listFiles(dir);
  for (const rel of current.keys()) if (!set.has(rel)) await rm(abs(dir, rel), { force: true });
  for (const [rel, src] of set) {
    if (rel.split('/').some((p) => p === '' || p === '.' || p === '..' || p.includes(sep))) continue;
    const live = current.get(rel);
    if (live && written.get(src) === signature(live)) continue;
    const to = abs(dir, rel);
    await mkdir(dirname(to), { recursive: true });
    if ('data' in src) await writeFile(to, src.data);
    else await copyFile(src.path, to);
    written.set(src, signature(await stat(to)));
  }
}

/** What making the files folder hold `set` takes: files to remove, files to (re)write. */
export interface FilesPlan { dir: string; remove: string[]; put: Array<{ path: string; src: FileSource }> }

export async function planFiles(ctx: AppContext, ws: Workspace, set: FileSet): Promise<FilesPlan> {
  const dir = await filesDirOf(ctx, ws);
  const current = await listFiles(dir);
  const plan: FilesPlan = { dir, remove: [], put: [] };
  for (const rel of current.keys()) if (!set.has(rel)) plan.remove.push(abs(dir, rel));
  for (const [rel, src] of set) {
    if (rel.split('/').some((p) => p === '' || p === '.' || p === '..' || p.includes(sep))) continue;
    const live = current.get(rel);
    if (live && written.get(src) === signature(live)) continue;
    plan.put.push({ path: abs(dir, rel), src });
  }
  return plan;
}

/** Remembers what a planned file was written from, once it is in place. */
export async function markWritten(plan: FilesPlan): Promise<void> {
  for (const { path, src } of plan.put) {
    const st = await stat(path).catch(() => undefined);
    if (st) written.set(src, signature(st));
  }
}
