// `npm run desktop` and `npm run dist` without network: one line saying what failed and what to
// do (a mirror, or `npm start` in a browser), never the downloader's stack trace. The network is
// taken away by pointing the downloads at a closed local port.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain .mjs script, no type declarations
import { electronBinary } from '../scripts/desktop.mjs';
// @ts-expect-error: a plain .mjs script, no type declarations
import { errorLine, isNetworkFailure } from '../scripts/offline-hint.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const OFFLINE = { ELECTRON_MIRROR: 'http://127.0.0.1:9/', ELECTRON_BUILDER_BINARIES_MIRROR: 'http://127.0.0.1:9/' };

function runScript(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [join(root, 'scripts', script), ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out })));
}

function expectExplained(out: string, command: string) {
  expect(out).toContain(`${command} needs the network the first time, and the download failed: `);
  expect(out).toContain('ECONNREFUSED 127.0.0.1:9');
  expect(out).toContain('`npm start`');
  expect(out).not.toMatch(/^\s+at \S/m); // no stack frame
  expect(out).not.toContain('stackTrace=');
}

describe('without network', { timeout: 150_000 }, () => {
  it('finds the error line in a downloader\'s output', () => {
    const got = 'RequestError: connect ECONNREFUSED 127.0.0.1:9\n    at ClientRequest.<anonymous> (x.js:1:1)\n';
    expect(isNetworkFailure(got)).toBe(true);
    expect(errorLine(got)).toBe('RequestError: connect ECONNREFUSED 127.0.0.1:9');
    expect(errorLine('  ⨯ getaddrinfo ENOTFOUND github.com  failedTask=build stackTrace=Error: getaddrinfo\n    at x')).toBe('getaddrinfo ENOTFOUND github.com');
    expect(isNetworkFailure('Error: Application entry file "main.js" does not exist')).toBe(false);
  });

  const electronDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  it.skipIf(!!electronBinary(electronDir))('npm run desktop fails with what to do when Electron cannot be fetched', async () => {
    const { code, out } = await runScript('desktop.mjs', [], OFFLINE);
    expect(code).toBe(1);
    expectExplained(out, 'npm run desktop');
  });

  it('npm run dist fails with what to do when electron-builder cannot download', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'hb-eb-cache-'));
    const out = mkdtempSync(join(tmpdir(), 'hb-eb-out-'));
    try {
      const r = await runScript('dist.mjs', ['--skip-build', '--dir', `-c.directories.output=${out}`], { ...OFFLINE, ELECTRON_BUILDER_CACHE: cache });
      expect(r.code).not.toBe(0);
      expectExplained(r.out, 'npm run dist');
      expect(existsSync(join(root, 'release', 'linux-unpacked'))).toBe(false);
    } finally { rmSync(cache, { recursive: true, force: true }); rmSync(out, { recursive: true, force: true }); }
  });
});
