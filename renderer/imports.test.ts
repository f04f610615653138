// The console runs in a browser: it may import the server's browser-safe folder (server/shared)
// and nothing else of the server.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('./src', import.meta.url));
const root = resolve(src, '../..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx)$/.test(f) && !f.endsWith('.test.ts') ? [p] : [];
  });
}

describe('renderer imports', () => {
  it('reach into the server only through server/shared, and never Node built-ins', () => {
    const bad: string[] = [];
    for (const file of files(src)) {
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        const spec = m[1];
        if (spec.startsWith('node:')) bad.push(`${relative(root, file)}: ${spec}`);
        if (!spec.startsWith('.')) continue;
        const target = relative(root, resolve(file, '..', spec));
        if (target.startsWith('server') && !target.startsWith(join('server', 'shared'))) bad.push(`${relative(root, file)}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
