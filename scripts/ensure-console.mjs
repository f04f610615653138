#!/usr/bin/env node
// Builds the console (Vite → dist/console) when the build is missing or older than its sources,
// so that `npm install && npm start` on a fresh clone serves it. A fresh build takes ~10-15 s on
// a laptop; an up-to-date one costs a directory walk (a few ms). In the npm package the console
// ships built and this script is not used.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist/console/index.html');
const sources = ['renderer', 'server/shared', 'package-lock.json'].map((p) => join(root, p));

function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const entry of readdirSync(path)) max = Math.max(max, newest(join(path, entry)));
  return max;
}

const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
const sourcesAt = Math.max(...sources.map(newest));
if (builtAt && builtAt >= sourcesAt) process.exit(0);

const vite = join(root, 'node_modules/vite/bin/vite.js');
if (!existsSync(vite)) {
  console.error(builtAt ? 'console: sources changed but Vite is not installed (npm install); serving the previous build'
    : 'console: not built and Vite is not installed; run npm install (the API works without it)');
  process.exit(0);
}
console.error(builtAt ? 'console: sources changed, rebuilding (Vite)…' : 'console: first build (Vite), ~10-15 s…');
const started = Date.now();
const r = spawnSync(process.execPath, [vite, 'build', '--config', join(root, 'renderer/vite.config.ts'), '--logLevel', 'warn'], { stdio: 'inherit', cwd: root });
if (r.status !== 0) {
  console.error('console: the build failed (see above); the API still starts');
  process.exit(0);
}
console.error(`console: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
