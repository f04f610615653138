#!/usr/bin/env node
// `npm run dist`: builds (npm run build) and then the installers for this OS with
// electron-builder. electron-builder's output is shown as it comes, except that a failure's stack
// trace is held back: when the failure is a download that could not reach the network, one line
// and what to do are printed instead (see offline-hint.mjs); any other failure prints it all.
// `--skip-build` packages what `dist/` already holds; other arguments go to electron-builder.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { isNetworkFailure, offlineHint } from './offline-hint.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const skipBuild = args.includes('--skip-build');

if (!skipBuild) {
  const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const cli = createRequire(import.meta.url).resolve('electron-builder/cli.js');
const child = spawn(process.execPath, [cli, '--publish', 'never', ...args.filter((a) => a !== '--skip-build')], { cwd: root, stdio: ['inherit', 'pipe', 'pipe'] });
let held = '';
let failing = false;
let all = '';
const pass = (out) => (chunk) => {
  const text = chunk.toString();
  all += text;
  if (all.length > 1_000_000) all = all.slice(-500_000);
  // From electron-builder's first error mark (⨯) on, output is held until the end.
  if (!failing && text.includes('⨯')) {
    const at = text.indexOf('⨯');
    const lineStart = text.lastIndexOf('\n', at) + 1;
    out.write(text.slice(0, lineStart));
    held += text.slice(lineStart);
    failing = true;
  } else if (failing) held += text;
  else out.write(text);
};
child.stdout.on('data', pass(process.stdout));
child.stderr.on('data', pass(process.stderr));
child.on('exit', (code, signal) => {
  if (code === 0) { process.stdout.write(held); process.exit(0); }
  if (isNetworkFailure(all)) process.stderr.write(offlineHint('npm run dist', held || all));
  else process.stderr.write(held);
  process.exit(code ?? (signal ? 1 : 0));
});
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => child.kill(s));
