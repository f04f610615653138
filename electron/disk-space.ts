// Warns before the disk holding the data folder fills up: the server then refuses writes, and
// the user is better told by the app than by failed requests. Checked every minute while the
// server runs; one warning per low-space episode (it re-arms once space is back).
import { statfs } from 'node:fs/promises';

export const LOW_DISK_BYTES = 200 * 1024 * 1024;
export const DISK_CHECK_MS = 60_000;

export type FreeBytes = (dir: string) => Promise<number>;
export const freeBytes: FreeBytes = async (dir) => { const s = await statfs(dir); return s.bavail * s.bsize; };

export function watchDiskSpace(dir: string, onLow: (free: number) => void,
  opts: { free?: FreeBytes; every?: number; threshold?: number } = {}): () => void {
  const free = opts.free ?? freeBytes;
  const threshold = opts.threshold ?? LOW_DISK_BYTES;
  let warned = false;
  let running = false;
  const check = async () => {
    if (running) return;
    running = true;
    try {
      const bytes = await free(dir);
      if (bytes < threshold && !warned) { warned = true; onLow(bytes); }
      if (bytes >= threshold * 1.5) warned = false;
    } catch { /* the folder is gone or unreadable: the server reports that itself */ } finally { running = false; }
  };
  void check();
  const timer = setInterval(() => void check(), opts.every ?? DISK_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
