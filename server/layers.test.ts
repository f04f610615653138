// The layers point one way: shared ← core ← storage ← modules ← app (server/*.ts). A file may
// import from its own layer and the ones before it, never after: core and storage know nothing
// of the modules, and nothing but the app knows how the modules are put together. The shared
// layer is browser-safe (the console imports it), so it imports no Node built-in either.
// Tests and the test harness may import anything.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SERVER = dirname(fileURLToPath(import.meta.url));
const LAYERS = ['shared', 'core', 'storage', 'modules', 'app'] as const;

function layerOf(file: string): number {
  const top = relative(SERVER, file).split(/[\\/]/)[0];
  const i = LAYERS.indexOf(top as (typeof LAYERS)[number]);
  return i === -1 ? LAYERS.indexOf('app') : i;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'test' && dir === SERVER ? [] : sources(path);
    return /\.ts$/.test(e.name) && !/\.(test|d)\.ts$/.test(e.name) ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports, type-only imports included. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) {
    out.push(m[1] ?? m[2] ?? m[3]);
  }
  return out;
}

describe('layers', () => {
  const files = sources(SERVER);

  it('finds the sources it checks', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(importsOf(join(SERVER, 'app.ts'))).toContain('express');
  });

  it('no file imports from a later layer', () => {
    const wrong: string[] = [];
    for (const file of files) {
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue;
        const target = resolve(dirname(file), spec);
        if (layerOf(target) > layerOf(file)) {
          wrong.push(`${relative(SERVER, file)} (${LAYERS[layerOf(file)]}) imports ${spec} (${LAYERS[layerOf(target)]})`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the shared layer is browser-safe: no Node built-ins, no packages', () => {
    const wrong = files.filter((f) => layerOf(f) === 0)
      .flatMap((f) => importsOf(f).filter((s) => !s.startsWith('.')).map((s) => `${relative(SERVER, f)} imports ${s}`));
    expect(wrong).toEqual([]);
  });

  it('storage throws its own errors, never the HTTP error type (the error handler maps them)', () => {
    const wrong = files.filter((f) => layerOf(f) === LAYERS.indexOf('storage') && /\bApiError\b/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SERVER, f));
    expect(wrong).toEqual([]);
  });
});
