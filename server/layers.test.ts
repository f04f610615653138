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
// What a running server holds lives in `ctx.state` (each module's `create(ctx)`), never in a
// module-level Map, WeakMap, Set or WeakSet of the modules or the v2 face: a collection made
// empty at module level is filled at run time, so it must be one of the few memo caches of
// immutable values (or notes on one request) listed in MODULE_LEVEL_ALLOWED. A collection made
// with its contents (`new Set(['GET', 'HEAD'])`) is a constant table and is not counted.
// Inside storage/, the engine-neutral files (the registry, the workspace, the interfaces) use
// an engine only through engine.ts: one file, open-storage.ts, picks the engine at start and is
// the only one of them that imports storage/embedded/ or storage/pg/ (their tests may).
// Otherwise tests and the test harness may import anything.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import ts from 'typescript';

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
const NAMES_PG = /\.pg\b|\bregistry\.database\b|\bPg(?:Backend|Database|Engine)\b/;

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

const STORAGE = join(SERVER, 'storage');
/** The one engine-neutral file of storage/ that picks the engine, and so imports the engines. */
const ENGINE_FACTORY = join(STORAGE, 'open-storage.ts');

/** The imports of storage's engine-neutral files (storage/ outside the engines' folders) that
 *  reach into an engine's folder, but the factory's. */
function neutralStorageEngineImports(list: Array<{ file: string; spec: string; target: string }>): string[] {
  return list.filter(({ file, target }) => inside(STORAGE, file) && !ENGINES.some((d) => inside(d, file)) && file !== ENGINE_FACTORY
    && ENGINES.some((d) => inside(d, target)))
    .map(({ file, spec }) => `${relative(SERVER, file)} imports ${spec}`);
}

/** The imports from module `a` into module `b` (any file of it, its face too). */
function importsBetween(list: Array<{ file: string; target: string }>, a: string, b: string): string[] {
  return list.filter(({ file, target }) => moduleOf(file) === a && moduleOf(target) === b)
    .map(({ file, target }) => `${relative(SERVER, file)} imports ${relative(SERVER, target)}`);
}

const COLLECTIONS = new Set(['Map', 'WeakMap', 'Set', 'WeakSet']);

/** The module-level collections a source makes empty (`name`, or `Class.name` for a static
 *  field): state filled at run time. Function bodies are not module level. */
function moduleLevelCollections(text: string): string[] {
  const file = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  const madeEmpty = (e: ts.Node | undefined): boolean => {
    if (!e) return false;
    if (ts.isFunctionLike(e) || ts.isClassLike(e)) return false;
    if (ts.isNewExpression(e) && ts.isIdentifier(e.expression) && COLLECTIONS.has(e.expression.text) && !e.arguments?.length) return true;
    return ts.forEachChild(e, (c) => (madeEmpty(c) ? true : undefined)) ?? false;
  };
  for (const st of file.statements) {
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) if (madeEmpty(d.initializer)) out.push(d.name.getText(file));
    } else if (ts.isClassDeclaration(st)) {
      for (const m of st.members) {
        const isStatic = ts.canHaveModifiers(m) && ts.getModifiers(m)?.some((x) => x.kind === ts.SyntaxKind.StaticKeyword);
        if (isStatic && ts.isPropertyDeclaration(m) && madeEmpty(m.initializer)) out.push(`${st.name?.text ?? '?'}.${m.name.getText(file)}`);
      }
    } else if (ts.isExpressionStatement(st) && madeEmpty(st.expression)) {
      out.push('(expression)');
    }
  }
  return out;
}

/** The module-level collections allowed, each a memo of immutable values or a note on one
 *  request (the comment at each says why it is not server state). Keep this list short: state
 *  of a server or a workspace goes in the module's `create(ctx)` state. */
const MODULE_LEVEL_ALLOWED = new Set([
  'modules/api-keys/authenticate-key.ts principals', // principal per immutable key object
  'modules/api-keys/service.ts checkedKeys', // secret check per immutable stored document
  'modules/auth/service.ts dummyHashes', // hash of a fixed text per bcrypt cost
  'modules/auth/sessions.ts keyObjects', // KeyObject per signing secret
  'modules/auth/sessions.ts verified', // claims per (KeyObject, token)
  'modules/database/collections.ts lookups', // lookup per immutable list of definitions
  'modules/database/indexes.ts synced', // the definition a store object's indexes follow
  'modules/database/service.ts typeOfCache', // per immutable collection definition
  'modules/storage/tus.ts uploadIdOfRequest', // note on one request
  'modules/users/repo.ts ahead', // process-wide bcrypt work begun ahead (the bin may start it)
  'modules/webhooks/filter.ts compiled', // compiled matcher per match text, bounded
  'modules/workspaces/files.ts written', // signature written per file-source object
  'v2/envelope.ts objectTags', // ETag per immutable document object
  'v2/envelope.ts listLinks', // JSON text of a list URL per origin/workspace/collection, bounded
  'v2/etag.ts byText', // ETag per text, bounded
  'v2/graphql/handler.ts byCollections', // schema per immutable list of definitions
  'v2/graphql/handler.ts byWorkspace', // last schema per shape hash
  'v2/graphql/handler.ts parsed', // parsed document per query text, bounded
  'v2/graphql/handler.ts validated', // validation per (document, schema, variables), bounded
  'v2/graphql/handler.ts variablesKey', // note on one request's rule list
  'v2/inject.ts injectedRequests', // mark on requests made in-process
  'v2/list-extension.ts STATE', // note on one request
]);

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

  it('the engine-neutral files of storage/ import an engine only through the one factory (open-storage.ts)', () => {
    const neutral = files.filter((f) => inside(STORAGE, f) && !ENGINES.some((d) => inside(d, f)));
    expect(neutral.map((f) => relative(STORAGE, f))).toEqual(expect.arrayContaining(['registry.ts', 'workspace.ts', 'engine.ts', 'open-storage.ts']));
    expect(neutralStorageEngineImports(edges(neutral))).toEqual([]);
    // ... and name no driver: what they need of one goes through engine.ts.
    const naming = neutral.filter((f) => f !== ENGINE_FACTORY)
      .flatMap((f) => readFileSync(f, 'utf8').split('\n').map((line, i) => ({ line, at: `${relative(SERVER, f)}:${i + 1}` })))
      .filter(({ line }) => NAMES_PG.test(line.replace(/\/\/.*$|^\s*\*.*$/, '')))
      .map(({ at, line }) => `${at}: ${line.trim()}`);
    expect(naming).toEqual([]);
  });

  it('the storage check sees a neutral file importing an engine, and lets the factory and the engines be', () => {
    const registry = join(STORAGE, 'registry.ts');
    const bad = { file: registry, spec: './embedded/engine.js', target: join(STORAGE, 'embedded', 'engine.ts') };
    const badPg = { file: join(STORAGE, 'workspace.ts'), spec: './pg/database.js', target: join(STORAGE, 'pg', 'database.ts') };
    const factory = { file: ENGINE_FACTORY, spec: './embedded/engine.js', target: join(STORAGE, 'embedded', 'engine.ts') };
    const engineItself = { file: join(STORAGE, 'embedded', 'engine.ts'), spec: './stores.js', target: join(STORAGE, 'embedded', 'stores.ts') };
    const neutral = { file: registry, spec: './engine.js', target: join(STORAGE, 'engine.ts') };
    expect(neutralStorageEngineImports([bad, badPg, factory, engineItself, neutral]))
      .toEqual(['storage/registry.ts imports ./embedded/engine.js', 'storage/workspace.ts imports ./pg/database.js']);
  });

  it('users and auth do not import each other: users imports nothing of auth', () => {
    const all = edges(files);
    expect(importsBetween(all, 'users', 'auth')).toEqual([]);
    expect(importsBetween(all, 'auth', 'users').length).toBeGreaterThan(0); // the check can see one
  });

  it('no module-level Map, WeakMap, Set or WeakSet in the modules or the v2 face but the listed memo caches', () => {
    const found = files.filter((f) => ENGINE_BLIND.some((d) => inside(d, f)))
      .flatMap((f) => moduleLevelCollections(readFileSync(f, 'utf8')).map((name) => `${relative(SERVER, f).split(sep).join('/')} ${name}`));
    expect(found.filter((entry) => !MODULE_LEVEL_ALLOWED.has(entry))).toEqual([]);
    // Every allowed entry is still there (a cache removed leaves the list).
    expect([...MODULE_LEVEL_ALLOWED].filter((entry) => !found.includes(entry))).toEqual([]);
  });

  it('the module-level check sees a collection made empty, and not a constant table or a local', () => {
    const sample = [
      "import { x } from './x.js';",
      'const pending = new Map<string, number>();',
      'export const listeners = new Set<() => void>();',
      'let cache = new WeakMap(), other = 1;',
      'const holder = { seen: new WeakSet<object>() };',
      "const TABLE = new Set(['GET', 'HEAD']);",
      "const BY_CODE = new Map([['a', 1]]);",
      'function f() { const local = new Map(); return local; }',
      'const g = () => new Set<string>();',
      'class Hub { static all = new Set<Hub>(); private mine = new Map(); }',
    ].join('\n');
    expect(moduleLevelCollections(sample)).toEqual(['pending', 'listeners', 'cache', 'holder', 'Hub.all']);
  });
});
