// npm run desktop (scripts/desktop.mjs) fetches Electron's binary only when it is missing.
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error: a plain .mjs script, no type declarations
import { electronBinary } from '../scripts/desktop.mjs';

describe('npm run desktop', () => {
  it('finds the binary the electron package fetched, and none when its download was skipped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hb-electron-pkg-'));
    try {
      expect(electronBinary(dir)).toBeUndefined(); // install skipped: no path.txt
      writeFileSync(join(dir, 'path.txt'), 'electron');
      expect(electronBinary(dir)).toBeUndefined(); // path.txt but no binary
      mkdirSync(join(dir, 'dist'));
      writeFileSync(join(dir, 'dist', 'electron'), '');
      expect(electronBinary(dir)).toBe(join(dir, 'dist', 'electron'));
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });
});
