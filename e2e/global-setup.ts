// Builds the console when its build is stale, then starts one real server (the CLI, in memory,
// on a free port) for the whole run; each test works in a workspace of its own. The URL and
// console token reach the workers through the environment.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export default async function globalSetup() {
  const build = spawnSync(process.execPath, ['scripts/ensure-console.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('console build failed');
  const token = `e2e-${randomBytes(12).toString('hex')}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli.ts', 'serve', '--json', '--port', '0', '--in-memory',
    '--console-token', token, '--admin-password', 'admin-password-1', '--webhook-retry-delays', '200,400'], {
    cwd: ROOT, env: { ...process.env, HOMEBASE_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => { err += d; });
  const line = await new Promise<{ consoleUrl: string; url: string }>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)));
    });
    child.on('exit', (code) => reject(new Error(`the server exited (${code}): ${err}`)));
  });
  process.env.HOMEBASE_E2E_URL = line.consoleUrl;
  process.env.HOMEBASE_E2E_TOKEN = token;
  return async () => {
    child.kill('SIGTERM');
    await new Promise((r) => { child.once('exit', r); setTimeout(r, 5000); });
  };
}
