#!/usr/bin/env node
// `npm run desktop`: runs the desktop app from a checkout. Fetches Electron's binary first when
// it is missing (installs skipped its download: ELECTRON_SKIP_BINARY_DOWNLOAD, or npm's
// allowScripts), builds the server and the shell, then launches Electron on the compiled shell.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isNetworkFailure, offlineHint } from './offline-hint.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The Electron binary of the electron package in `packageDir`, or undefined when it was never fetched. */
export function electronBinary(packageDir) {
  const pathFile = join(packageDir, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

function run(command, args, env = process.env, { exitOnFailure = true } = {}) {
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit', env, shell: process.platform === 'win32' });
  if (r.status !== 0 && exitOnFailure) process.exit(r.status ?? 1);
}

function main() {
  const packageDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  let binary = electronBinary(packageDir);
  if (!binary) {
    const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    process.stderr.write(`Electron ${version}'s binary is missing (its download was skipped at install); fetching it now...\n`);
    const env = { ...process.env };
    delete env.ELECTRON_SKIP_BINARY_DOWNLOAD;
    delete env.npm_config_electron_skip_binary_download;
    // Its output is kept: a failed download is said in one line and what to do, not the
    // downloader's stack trace.
    const fetched = spawnSync(process.execPath, [join(packageDir, 'install.js')], { cwd: root, env, encoding: 'utf8' });
    binary = electronBinary(packageDir);
    if (!binary) {
      const output = `${fetched.stdout ?? ''}\n${fetched.stderr ?? ''}\n${fetched.error?.message ?? ''}`;
      process.stderr.write(isNetworkFailure(output) ? offlineHint('npm run desktop', output) : `${output.trim()}\nElectron could not be fetched (see above); run npm run desktop again.\n`);
      process.exit(1);
    }
  }
  run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'build']);
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  const child = spawn(binary, [join(root, 'dist', 'electron', 'main.js'), ...process.argv.slice(2)], { cwd: root, stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
