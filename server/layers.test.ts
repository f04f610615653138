// The layers point one way: shared ← core ← storage ← modules ← app (server/*.ts). A file may
// import from its own layer and the ones before it, never after: core and storage know nothing
// of the modules, and nothing but the app knows how the modules are put together. The shared
// layer is browser-safe (the console imports it), so it imports no Node built-in either.
// Inside the modules layer each module folder has a public face, its `index.ts`: another module,
// a shared file of the layer (`modules/*.ts`) or the app imports that file only, never the
// module's other files. `users` (the accounts) and `auth` (signing in with one) do not import each
// other: auth uses users, and what users needs of auth comes through the context.
// The modules and the v2 face are blind to the storage engine: they use the store and workspace
// interfaces of storage/ only, never a file of storage/embedded/ or storage/pg/ (their tests
// neither), and no source of theirs reaches for the PostgreSQL driver (`ws.pg`,
// `registry.database`).
// Otherwise tests and the test harness may import anything.
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

const MODULES = join(SERVER, 'modules');

/** The module folder a file belongs to (`auth`), '' for a shared file of the modules layer,
 *  undefined outside the layer. */
function moduleOf(file: string): string | undefined {
  const rel = relative(MODULES, file);
  if (rel.startsWith('..')) return undefined;
  const parts = rel.split(/[\\/]/);
  return parts.length === 1 ? '' : parts[0];
}

/** Every relative import of the sources, resolved to the file it names. */
function edges(files: string[]): Array<{ file: string; spec: string; target: string }> {
  return files.flatMap((file) => importsOf(file).filter((s) => s.startsWith('.'))
    .map((spec) => ({ file, spec, target: resolve(dirname(file), spec).replace(/\.js$/, '.ts') })));
}

/** The imports that reach into another module past its face. */
function reachesPastFace(list: Array<{ file: string; spec: string; target: string }>): string[] {
  return list.filter(({ file, target }) => {
    const to = moduleOf(target);
    if (!to) return false; // outside the layer, or a shared file of it
    if (moduleOf(file) === to) return false; // inside its own module
    return relative(join(MODULES, to), target) !== 'index.ts';
  }).map(({ file, spec }) => `${relative(SERVER, file)} imports ${spec}`);
}

const ENGINES = [join(SERVER, 'storage', 'embedded'), join(SERVER, 'storage', 'pg')];
const ENGINE_BLIND = [MODULES, join(SERVER, 'v2')];
/** Naming the PostgreSQL driver in code: a workspace's or the registry's handle on it. */
const NAMES_PG = /\.pg\b|\bregistry\.database\b|\bPg(?:Backend|Database)\b/;

/** Every .ts file under `dir`, tests included. */
function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? allFiles(path) : /\.ts$/.test(e.name) ? [path] : [];
  });
}

const inside = (dir: string, file: string) => !relative(dir, file).startsWith('..');

/** The imports of the modules and the v2 face that reach into an engine's folder. */
function engineImports(list: Array<{ file: string; spec: string; target: string }>): string[] {
  return list.filter(({ file, target }) => ENGINE_BLIND.some((d) => inside(d, file)) && ENGINES.some((d) => inside(d, target)))
    .map(({ file, spec }) => `${relative(SERVER, file)} imports ${spec}`);
}

/** The imports from module `a` into module `b` (any file of it, its face too). */
function importsBetween(list: Array<{ file: string; target: string }>, a: string, b: string): string[] {
  return list.filter(({ file, target }) => moduleOf(file) === a && moduleOf(target) === b)
    .map(({ file, target }) => `${relative(SERVER, file)} imports ${relative(SERVER, target)}`);
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

  it('a module is used only through its face (index.ts), by other modules and by the app', () => {
    expect(reachesPastFace(edges(files))).toEqual([]);
  });

  it('the faces check sees a reach past a face, and a face is no reach', () => {
    const file = join(MODULES, 'chats', 'service.ts');
    const past = { file, spec: '../users/repo.js', target: join(MODULES, 'users', 'repo.ts') };
    const face = { file, spec: '../users/index.js', target: join(MODULES, 'users', 'index.ts') };
    const own = { file, spec: './store.js', target: join(MODULES, 'chats', 'store.ts') };
    const app = { file: join(SERVER, 'app.ts'), spec: './modules/auth/authenticate.js', target: join(MODULES, 'auth', 'authenticate.ts') };
    expect(reachesPastFace([past, face, own, app])).toEqual(['modules/chats/service.ts imports ../users/repo.js', 'app.ts imports ./modules/auth/authenticate.js']);
  });

  it('every module folder has a face', () => {
    const folders = readdirSync(MODULES, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((m) => !files.includes(join(MODULES, m, 'index.ts')))).toEqual([]);
  });

  it('the modules and the v2 face import no storage engine (storage/embedded, storage/pg), tests included', () => {
    const all = ENGINE_BLIND.flatMap((d) => allFiles(d));
    expect(all.length).toBeGreaterThan(100);
    expect(engineImports(edges(all))).toEqual([]);
  });

  it('no source of the modules or the v2 face names the PostgreSQL driver', () => {
    const wrong = files.filter((f) => ENGINE_BLIND.some((d) => inside(d, f)))
      .flatMap((f) => readFileSync(f, 'utf8').split('\n').map((line, i) => ({ line, at: `${relative(SERVER, f)}:${i + 1}` })))
      .filter(({ line }) => NAMES_PG.test(line.replace(/\/\/.*$|^\s*\*.*$/, '')))
      .map(({ at, line }) => `${at}: ${line.trim()}`);
    expect(wrong).toEqual([]);
  });

  it('the engine checks see an engine import and a use of the driver', () => {
    const file = join(MODULES, 'workspaces', 'state.ts');
    const embedded = { file, spec: '../../storage/embedded/swap.js', target: join(SERVER, 'storage', 'embedded', 'swap.ts') };
    const pgFile = { file: join(SERVER, 'v2', 'batch.ts'), spec: '../storage/pg/pg-store.js', target: join(SERVER, 'storage', 'pg', 'pg-store.ts') };
    const neutral = { file, spec: '../../storage/store.js', target: join(SERVER, 'storage', 'store.ts') };
    const storageItself = { file: join(SERVER, 'storage', 'workspace.ts'), spec: './pg/workspaces.js', target: join(SERVER, 'storage', 'pg', 'workspaces.ts') };
    expect(engineImports([embedded, pgFile, neutral, storageItself])).toEqual(['modules/workspaces/state.ts imports ../../storage/embedded/swap.js', 'v2/batch.ts imports ../storage/pg/pg-store.js']);
    expect(['if (ws.pg) return', 'ws.pg?.tell(ws.id, T, {})', 'ctx.registry.database?.hear(T, h)'].every((l) => NAMES_PG.test(l))).toBe(true);
    expect(['ws.processes.tell(ws.id, T, {})', "const page = 'pg';"].some((l) => NAMES_PG.test(l))).toBe(false);
  });

  it('users and auth do not import each other: users imports nothing of auth', () => {
    const all = edges(files);
    expect(importsBetween(all, 'users', 'auth')).toEqual([]);
    expect(importsBetween(all, 'auth', 'users').length).toBeGreaterThan(0); // the check can see one
  });
});
