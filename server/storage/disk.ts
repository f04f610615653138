// Every write the stores make to the data folder goes through here: appends, atomic file
// replacements, truncations, renames, removals. One place, so that tests can inject faults
// (fail the N-th write with ENOSPC, EROFS, EPERM... without root) and crash the process at a
// named step (a child process killed mid-import), and so that the error of a failed write is
// always turned into a storage error (errors.ts) naming the folder.
import { constants as fsConstants, createWriteStream, existsSync, promises as fs, readFileSync, type WriteStream } from 'node:fs';
import { Writable } from 'node:stream';

export type DiskOp = 'append' | 'write' | 'truncate' | 'rename' | 'remove' | 'mkdir' | 'copy' | 'link';

export interface DiskFault {
  /** The error code thrown: ENOSPC, EROFS, EPERM, EACCES, EIO... */
  code: string;
  /** Fail from the N-th matching write on (1 = the next one). Default 1. */
  nth?: number;
  /** How many writes fail from there (default: every one until the fault is cleared). */
  times?: number;
  /** Only writes whose path contains this string (or matches this pattern). */
  path?: string | RegExp;
  /** Only these operations (default: all but truncate and remove, which free space and are
   *  how a failed write is undone). */
  ops?: DiskOp[];
}

let fault: (DiskFault & { seen: number; failed: number }) | undefined;

/** Test hook: fail writes as `f` says; `undefined` clears it (the disk "recovers"). */
export function injectDiskFault(f: DiskFault | undefined): void {
  fault = f && { ...f, seen: 0, failed: 0 };
}

/** Test hook for child processes: while the file named by HOMEBASE_TEST_DISK_FAULT_FILE
 *  exists, every write fails with the error code it holds (ENOSPC, EROFS...). */
const faultFile = process.env.HOMEBASE_TEST_DISK_FAULT_FILE;

function check(op: DiskOp, path: string): NodeJS.ErrnoException | undefined {
  if (faultFile && op !== 'truncate' && op !== 'remove' && existsSync(faultFile)) {
    const code = readFileSync(faultFile, 'utf8').trim() || 'ENOSPC';
    return Object.assign(new Error(`${code}: injected fault, ${op} '${path}'`), { code, syscall: op, path });
  }
  if (!fault) return undefined;
  if (fault.ops ? !fault.ops.includes(op) : op === 'truncate' || op === 'remove') return undefined;
  if (fault.path && !(typeof fault.path === 'string' ? path.includes(fault.path) : fault.path.test(path))) return undefined;
  fault.seen++;
  if (fault.seen < (fault.nth ?? 1)) return undefined;
  if (fault.times !== undefined && fault.failed >= fault.times) return undefined;
  fault.failed++;
  const messages: Record<string, string> = { ENOSPC: 'no space left on device', EROFS: 'read-only file system', EPERM: 'operation not permitted', EACCES: 'permission denied' };
  return Object.assign(new Error(`${fault.code}: ${messages[fault.code] ?? 'injected fault'}, ${op} '${path}'`), { code: fault.code, syscall: op, path });
}

/** Test hook for kill -9 tests: a child started with HOMEBASE_TEST_CRASH_AT=<step>[#n] kills
 *  itself (SIGKILL, no cleanup) on reaching that step the n-th time (default the first). */
const crashAt = process.env.HOMEBASE_TEST_CRASH_AT;
const crashSeen = new Map<string, number>();
export function crashPoint(step: string): void {
  if (!crashAt) return;
  const [name, nth] = crashAt.split('#');
  if (name !== step) return;
  const n = (crashSeen.get(step) ?? 0) + 1;
  crashSeen.set(step, n);
  if (n === Number(nth ?? 1)) process.kill(process.pid, 'SIGKILL');
}

/** Appends `data`; on failure the file is cut back to `sizeBefore` (when given), so that a
 *  partial line never stays to swallow the next append. Resolves false when that undo failed. */
export async function append(path: string, data: string): Promise<void> {
  const err = check('append', path);
  if (err) {
    // A full disk usually takes part of the write before failing: simulate that.
    if (err.code === 'ENOSPC' && data.length > 1) await fs.appendFile(path, data.slice(0, data.length >> 1));
    throw err;
  }
  await fs.appendFile(path, data);
}

export async function truncate(path: string, size: number): Promise<void> {
  const err = check('truncate', path);
  if (err) throw err;
  await fs.truncate(path, size);
}

/** Replaces `path` with `data` in one step: written beside (`path~`), flushed, renamed over. A
 *  crash leaves the old file whole (and maybe a `path~` that the next load removes). */
export async function writeAtomic(path: string, data: string | Buffer, mode = 0o600): Promise<void> {
  const temp = `${path}~`;
  try {
    const err = check('write', path);
    if (err) {
      if (err.code === 'ENOSPC') await fs.writeFile(temp, data.slice(0, data.length >> 1), { mode });
      throw err;
    }
    const fh = await fs.open(temp, 'w', mode);
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(temp, path);
  } catch (e) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw e;
  }
}

/** Writes a new file (not atomically: for files inside a folder that is itself switched in). */
export async function writeFile(path: string, data: string | Buffer, mode = 0o600): Promise<void> {
  const err = check('write', path);
  if (err) throw err;
  await fs.writeFile(path, data, { mode });
}

export async function copyFile(from: string, to: string): Promise<void> {
  const err = check('copy', to);
  if (err) throw err;
  await fs.copyFile(from, to);
}

/** A copy of `from` as `to` (a clone where the file system has them), flushed to the disk. */
export async function copyFlushed(from: string, to: string): Promise<void> {
  const err = check('copy', to);
  if (err) throw err;
  await fs.copyFile(from, to, fsConstants.COPYFILE_FICLONE);
  const fh = await fs.open(to, 'r+');
  try { await fh.sync(); } finally { await fh.close(); }
}

/** A second name `to` for the file `from` (a hard link: the same content, no copy). */
export async function link(from: string, to: string): Promise<void> {
  const err = check('link', to);
  if (err) throw err;
  await fs.link(from, to);
}

export async function rename(from: string, to: string): Promise<void> {
  const err = check('rename', to);
  if (err) throw err;
  await fs.rename(from, to);
}

export async function remove(path: string, recursive = false): Promise<void> {
  const err = check('remove', path);
  if (err) throw err;
  await fs.rm(path, { force: true, recursive });
}

export async function mkdir(path: string): Promise<void> {
  const err = check('mkdir', path);
  if (err) throw err;
  await fs.mkdir(path, { recursive: true, mode: 0o700 });
}

/** Flushes a folder's entries (renames into it) to the disk; ignored where folders cannot be opened. */
export async function syncDir(path: string): Promise<void> {
  const fh = await fs.open(path, 'r').catch(() => undefined);
  if (!fh) return;
  try { await fh.sync(); } catch { /* not supported (some platforms / file systems) */ } finally { await fh.close(); }
}

/** A write stream to a new file (`wx`: never over an existing one), for bytes streamed in (a
 *  simple upload); an injected fault makes it fail as the disk would, before anything is written. */
export function newFileStream(path: string, mode = 0o600): WriteStream | Writable {
  const err = check('write', path);
  if (err) return new Writable({ construct: (done) => done(err), write: (_chunk, _enc, done) => done(err) });
  return createWriteStream(path, { flags: 'wx', mode });
}

