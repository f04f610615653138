// The data-folder lock: one server per folder. The lock file holds the owner's pid; a lock
// whose process is gone (a killed server) is taken over.
import { openSync, writeSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const heldInThisProcess = new Set<string>();

export class DataFolderLockedError extends Error {}

export function acquireLock(dataDir: string): () => void {
  const file = join(dataDir, '.lock');
  if (heldInThisProcess.has(file)) throw lockedError(dataDir, process.pid);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldInThisProcess.add(file);
      return () => {
        heldInThisProcess.delete(file);
        try { if (readFileSync(file, 'utf8') === String(process.pid)) rmSync(file, { force: true }); } catch { /* already gone */ }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number.parseInt(readSafe(file), 10);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) throw lockedError(dataDir, pid);
      rmSync(file, { force: true }); // stale: its server is gone
    }
  }
  throw lockedError(dataDir, undefined);
}

function lockedError(dataDir: string, pid: number | undefined) {
  return new DataFolderLockedError(
    `The data folder ${dataDir} is in use by another Homebase server${pid ? ` (pid ${pid})` : ''}. ` +
    'Stop that server, or start this one with another --data folder or --in-memory.');
}

function readSafe(file: string) { try { return readFileSync(file, 'utf8'); } catch { return ''; } }

function isAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM'; }
}

