// Runs the CommonJS build of the CLI (dist/server/bundle/cli.cjs) with a V8 code cache, so that a
// start deserializes the server's compiled code instead of parsing and compiling several
// megabytes of JavaScript again. Node 20 keeps no compile cache of its own (that came in Node 22).
//
// The cache is one file per installed bundle in the user's own cache folder (never a shared
// temporary folder: another user could plant code there), written once a server has started (so
// it holds the functions a start runs, not only the top level), and rewritten when it no longer
// fits. It can never change what runs: V8 checks that the cache was made by the same V8, with
// the same flags, for a source of the same length, and a cache made for another build (by size,
// modification time or Node version) is not even offered; a rejected or missing cache only
// means the code is compiled as it would be without one. HOMEBASE_CODE_CACHE=0 turns it off;
// HOMEBASE_CODE_CACHE=/absolute/folder puts it there instead.
'use strict';
const { isAscii } = require('node:buffer');
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { homedir } = require('node:os');
const { dirname, isAbsolute, join } = require('node:path');
const vm = require('node:vm');

/** The user's cache folder for Homebase, or undefined when there is no home to put it in. */
function cacheFolder() {
  const env = process.env;
  if (process.platform === 'win32') return env.LOCALAPPDATA ? join(env.LOCALAPPDATA, 'homebase', 'Cache') : undefined;
  let home;
  try { home = homedir(); } catch { return undefined; }
  if (process.platform === 'darwin') return home ? join(home, 'Library', 'Caches', 'homebase') : undefined;
  if (env.XDG_CACHE_HOME?.startsWith('/')) return join(env.XDG_CACHE_HOME, 'homebase');
  return home ? join(home, '.cache', 'homebase') : undefined;
}

/** The value of V8's --heap-growing-percent this process was started with (V8's default: 0). */
function heapGrowingPercentAtStart() {
  let value = 0;
  for (const arg of [...(process.env.NODE_OPTIONS ?? '').split(/\s+/), ...process.execArgv]) {
    const set = /^--heap[-_]growing[-_]percent=(\d+)$/.exec(arg);
    if (set) value = Number(set[1]);
  }
  return value;
}

/** The script's code cache, made under the V8 settings it was compiled with. V8 stamps a cache
 *  with a hash of the settings in force when it is made and rejects it at a start whose
 *  settings differ; the server changes one as it starts (its heap growing factor,
 *  server/core/heap-growth.ts, which says the value it set in homebase.heapGrowingPercent), so
 *  a cache made after the start was rejected by every next start, which compiled everything
 *  again. The setting is put back to the start's value for the moment the cache takes to make. */
function cachedDataAsCompiled(script) {
  const serverSet = globalThis[Symbol.for('homebase.heapGrowingPercent')];
  if (typeof serverSet !== 'number') return script.createCachedData();
  const v8 = require('node:v8');
  v8.setFlagsFromString(`--heap-growing-percent=${heapGrowingPercentAtStart()}`);
  try {
    return script.createCachedData();
  } finally {
    v8.setFlagsFromString(`--heap-growing-percent=${serverSet}`);
  }
}

/** Runs `file` (a CommonJS module) as the main program; returns once its top level has run. */
function runCommonJs(file) {
  // The build writes the bundle in ASCII (scripts/bundle-server.mjs): read as Latin-1, which is
  // the same text then, it becomes a string of one byte a character without a UTF-8 decoding.
  const bytes = readFileSync(file);
  const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const source = text.startsWith('#!') ? `//${text.slice(2)}` : text; // a shebang line, as Node drops it
  const setting = process.env.HOMEBASE_CODE_CACHE;
  const folder = setting === '0' ? undefined : setting && isAbsolute(setting) ? setting : cacheFolder();
  let cacheFile; let key; let cachedData;
  if (folder) {
    const stat = statSync(file);
    // What the cache was made for: this file, as built, run by this Node on this machine type.
    key = Buffer.from(JSON.stringify([file, stat.size, stat.mtimeMs, process.version, process.arch]) + '\n');
    cacheFile = join(folder, `code-${createHash('sha256').update(file).digest('hex').slice(0, 16)}.bin`);
    try {
      const stored = readFileSync(cacheFile);
      if (stored.length > key.length && stored.subarray(0, key.length).equals(key)) cachedData = stored.subarray(key.length);
    } catch { /* no cache yet */ }
  }
  // The wrapper Node puts around a CommonJS module, on the source's first line so that stack
  // traces keep their line numbers.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (cacheFile && (!cachedData || script.cachedDataRejected)) {
    // Written once the server has started and answered its banner (cli.ts calls this), not
    // before: the cache then holds the code a start runs, and making it does not delay the start.
    globalThis[Symbol.for('homebase.started')] = () => setImmediate(() => {
      try {
        mkdirSync(folder, { recursive: true, mode: 0o700 });
        const part = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(part, Buffer.concat([key, cachedDataAsCompiled(script)]), { mode: 0o600 });
        renameSync(part, cacheFile); // whole or not at all, also when two starts race
      } catch { /* a read-only or full disk: start without a cache next time too */ }
    });
  }
  const module = { exports: {}, filename: file, id: '.', path: dirname(file), loaded: false, children: [], paths: [] };
  const require = createRequire(file);
  script.runInThisContext().call(module.exports, module.exports, require, module, file, dirname(file));
  module.loaded = true;
}

module.exports = { runCommonJs };
