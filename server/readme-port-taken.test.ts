// The README's HTTP quick start when another server already listens on its port: its own server
// stops on the taken port, and the wait loop must notice that instead of going on against the
// other server (whose data the user would then be working in). Runs the quick start's opening
// lines (start, wait) from README.md as written, with the CLI from source.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'homebase-readme-port-'));
let other: Server | undefined;
afterAll(() => { other?.close(); rmSync(dir, { recursive: true, force: true }); });

/** The quick start's lines up to and including its wait for the server. */
function openingLines(): string {
  const at = README.indexOf('<!-- quick-start');
  const block = /```sh\n([\s\S]*?)\n```/.exec(README.slice(at))![1];
  const lines = block.split('\n');
  const api = lines.findIndex((l) => l.startsWith('API='));
  expect(api).toBeGreaterThan(0);
  return lines.slice(0, api).join('\n');
}

describe("README's quick start", { timeout: 60_000 }, () => {
  it('stops with the reason when another server already holds the port, instead of using that one', async () => {
    // "Another Homebase": answers health like one.
    other = createServer((req, res) => { res.setHeader('content-type', 'application/json'); res.end(req.url === '/api/health' ? '{"status":"ok"}' : '{}'); });
    await new Promise<void>((resolve) => other!.listen(0, '127.0.0.1', resolve));
    const port = (other.address() as { port: number }).port;
    const script = openingLines()
      .replaceAll('127.0.0.1:4700', `127.0.0.1:${port}`)
      .replace('./node_modules/.bin/homebase serve', `homebase serve --port ${port}`);
    const cli = `homebase() { "${process.execPath}" --import "${pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href}" "${join(ROOT, 'server/cli.ts')}" "$@"; }\n`;
    const child = spawn('sh', ['-e', '-c', cli + script + '\necho STARTED'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(out).not.toContain('STARTED');
    expect(code, out).not.toBe(0);
    expect(out).toMatch(new RegExp(`${port}.*the port is taken`));
  });
});
