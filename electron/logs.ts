// The shell's log file, <logs>/homebase.log (Linux ~/.config/Homebase/logs, macOS
// ~/Library/Logs/Homebase, Windows %APPDATA%\Homebase\logs): the shell's own lines and the
// server's output. The previous file is kept as homebase.old.log once it passes 5 MiB.
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const LOG_ROTATE_BYTES = 5 * 1024 * 1024;

export interface Log {
  file: string;
  write(line: string): void;
}

export function openLog(dir: string): Log {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'homebase.log');
  let size = 0;
  try { size = statSync(file).size; } catch { /* new file */ }
  const rotate = () => {
    try { renameSync(file, join(dir, 'homebase.old.log')); } catch { /* nothing to keep */ }
    size = 0;
  };
  if (size > LOG_ROTATE_BYTES) rotate();
  return {
    file,
    write(line: string) {
      const text = `${new Date().toISOString()} ${line.replace(/\s+$/, '')}\n`;
      try {
        appendFileSync(file, text);
        size += Buffer.byteLength(text);
        if (size > LOG_ROTATE_BYTES) rotate();
      } catch {
        // A full disk or a removed folder must not take the app down with it.
      }
    },
  };
}
