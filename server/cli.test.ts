// The CLI as a process: start line, graceful stop, the data-folder lock, and durability across kill -9.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn, type ChildProcess } from 'node:child_process';
import { serveJson, spawnCli, exited, closed } from './test/spawn.js';
import { waitFor } from './test/receiver.js';
import { tempDataDir } from './test/harness.js';

const children: ChildProcess[] = [];
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const f of cleanups.splice(0)) f();
});

function tmp() { const d = tempDataDir(); cleanups.push(d.remove); return d.dir; }

async function serve(args: string[]) {
  const s = await serveJson(args);
  children.push(s.child);
  return s;
}

async function adminToken(line: { url: string; consoleToken: string }) {
  const res = await fetch(`${line.url}/workspaces/demo/token`, { method: 'POST', headers: { authorization: `Bearer ${line.consoleToken}` } });
  expect(res.status).toBe(200);
  return (await res.json()).token as string;
}

describe('homebase serve', { timeout: 90_000 }, () => {
  it('prints exactly one JSON start line and serves health', async () => {
    const dir = tmp();
    const { line, child } = await serve(['--port', '0', '--data', dir, '--admin-password', 'secret-pass-1']);
    expect(Object.keys(line).sort()).toEqual(['consoleToken', 'consoleUrl', 'url', 'workspaces']);
    expect(line.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    expect(line.consoleUrl).toBe(line.url.replace(/\/api$/, ''));
    expect(line.workspaces).toEqual(['demo']);
    expect((await (await fetch(`${line.url}/health`)).json()).status).toBe('ok');
    const done = exited(child);
    child.kill('SIGTERM');
    const { code, stdout } = await done;
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(existsSync(join(dir, '.lock'))).toBe(false);
  });

  it('runs through `npm run --silent serve` with a chosen console token and workspace', async () => {
    const dir = tmp();
    const { spawn } = await import('node:child_process');
    const child = spawn('npm', ['run', '--silent', 'serve', '--', '--port', '0', '--data', dir, '--json', '--workspace', 'shop', '--console-token', 'my-console-token-123', '--admin-password', 'secret-pass-1'],
      { cwd: process.cwd(), env: { ...process.env, HOMEBASE_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    // npm runs the server as a grandchild (npm → tsx → node) and does not pass a kill on: end the
    // whole process group, or the server outlives the test run.
    cleanups.unshift(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ } });
    const line = await new Promise<{ url: string; consoleToken: string; workspaces: string[] }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => { out += d; if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0])); });
      child.on('exit', (c) => reject(new Error(`exited ${c}`)));
    });
    expect(line.consoleToken).toBe('my-console-token-123');
    expect(line.workspaces).toEqual(['shop']);
    const login = await fetch(`${line.url}/workspaces/shop/token`, { method: 'POST', headers: { authorization: 'Bearer my-console-token-123' } });
    expect(login.status).toBe(200);
  });

  it('refuses a second server on the same data folder, and takes over a killed server\'s lock', async () => {
    const dir = tmp();
    const first = await serve(['--port', '0', '--data', dir, '--admin-password', 'secret-pass-1']);
    const second = spawnCli(['serve', '--port', '0', '--data', dir]);
    children.push(second);
    const result = await exited(second);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/in use by another Homebase server/);
    expect(result.stdout).toBe('');
    // the first is untouched
    expect((await fetch(`${first.line.url}/health`)).status).toBe(200);

    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(existsSync(join(dir, '.lock'))).toBe(true); // left behind by kill -9
    const third = await serve(['--port', '0', '--data', dir]);
    expect(third.line.consoleToken).toBe(first.line.consoleToken); // same folder, same token
  });

  it('refuses a non-loopback host without an admin password, and bad flags', async () => {
    const noPw = spawnCli(['serve', '--port', '0', '--host', '0.0.0.0', '--data', tmp()], { HOMEBASE_ADMIN_PASSWORD: '' });
    const r1 = await exited(noPw);
    expect(r1.code).toBe(1);
    expect(r1.stderr).toMatch(/admin password/);
    const bad = await exited(spawnCli(['serve', '--port', 'abc']));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--port/);
    const both = await exited(spawnCli(['serve', '--in-memory', '--data', 'x']));
    expect(both.code).toBe(2);
  }, 90_000); // three starts of the CLI

  it('with --in-memory writes no data folder', async () => {
    const defaultFolder = join(process.cwd(), 'homebase-data');
    const existed = existsSync(defaultFolder);
    const { line } = await serve(['--port', '0', '--in-memory']);
    expect((await fetch(`${line.url}/health`)).status).toBe(200);
    if (!existed) expect(existsSync(defaultFolder)).toBe(false);
  });

  it('keeps every acknowledged record across kill -9', async () => {
    const dir = tmp();
    const first = await serve(['--port', '0', '--data', dir, '--admin-password', 'secret-pass-1']);
    const token = await adminToken(first.line);
    const api = `${first.line.url}/app/demo`;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const made = await fetch(`${api}/database`, { method: 'POST', headers, body: JSON.stringify({ _id: 'events', name: 'Events', setting: { read: 'public', write: 'private', update: 'private' } }) });
    expect(made.status).toBe(201);

    const acknowledged: string[] = [];
    let killed = false;
    const writer = async () => {
      for (let i = 0; !killed; i++) {
        try {
          const res = await fetch(`${api}/database/events`, { method: 'POST', headers, body: JSON.stringify({ n: i, payload: 'x'.repeat(200) }) });
          if (res.status === 201) acknowledged.push((await res.json())._id);
        } catch { return; }
      }
    };
    const writers = [writer(), writer(), writer(), writer()];
    await waitFor(() => acknowledged.length >= 100, 30_000, 'creates acknowledged before the kill');
    // Listen for the exit before killing: the child can be gone (its 'exit' already emitted)
    // by the time the writers have noticed, and a late listener then waits forever.
    const gone = exited(first.child);
    first.child.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    await gone;

    const second = await serve(['--port', '0', '--data', dir]);
    const token2 = await adminToken(second.line);
    const list = await fetch(`${second.line.url}/app/demo/database/events?limit=0`, { headers: { authorization: `Bearer ${token2}` } });
    const total = (await list.json()).meta.total;
    expect(total).toBeGreaterThanOrEqual(acknowledged.length);
    for (const id of acknowledged) {
      const res = await fetch(`${second.line.url}/app/demo/database/events/${id}`, { headers: { authorization: `Bearer ${token2}` } });
      expect(res.status, `record ${id} acknowledged before kill -9`).toBe(200);
    }
  }, 60_000);
});


describe('tuning flags', () => {
  it('--login-rate-limit sets the failed-login limit (0 turns it off)', async () => {
    const { line } = await serve(['--port', '0', '--in-memory', '--admin-password', 'secret-pass-1', '--login-rate-limit', '2']);
    const login = (password: string) => fetch(`${line.url}/app/demo/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password }) });
    expect((await login('wrong-password')).status).toBe(401);
    expect((await login('wrong-password')).status).toBe(401);
    expect((await login('secret-pass-1')).status).toBe(429);

    const off = await serve(['--port', '0', '--in-memory', '--admin-password', 'secret-pass-1', '--login-rate-limit', '0']);
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${off.line.url}/app/demo/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password: 'wrong-password' }) });
      expect(res.status).toBe(401);
    }
  });

  it('--json-limit and --upload-limit set the body limits', async () => {
    const { line } = await serve(['--port', '0', '--in-memory', '--admin-password', 'secret-pass-1', '--json-limit', '200', '--upload-limit', '10']);
    const token = await adminToken(line);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    expect((await fetch(`${line.url}/app/demo/database`, { method: 'POST', headers, body: JSON.stringify({ _id: 'notes', name: 'x'.repeat(60), setting: { read: 'private', write: 'private', update: 'private' } }) })).status).toBe(201);
    const big = await fetch(`${line.url}/app/demo/database`, { method: 'POST', headers, body: JSON.stringify({ _id: 'other', name: 'x'.repeat(300) }) });
    expect(big.status).toBe(413);
    expect((await big.json()).error.message).toContain('--json-limit');
    const form = new FormData();
    form.append('file', new Blob(['more than ten bytes']), 'a.txt');
    const up = await fetch(`${line.url}/app/demo/storage/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(up.status).toBe(413);
  });

  it('--webhook-timeout and --webhook-retry-delays reach webhook delivery', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent = (await import('node:http')).createServer(() => { /* never answers */ });
    silent.on('connection', (s) => { sockets.add(s); });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { line } = await serve(['--port', '0', '--in-memory', '--admin-password', 'secret-pass-1', '--webhook-timeout', '300', '--webhook-retry-delays', 'none']);
      const token = await adminToken(line);
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const url = `http://127.0.0.1:${(silent.address() as import('node:net').AddressInfo).port}/hook`;
      const hook = await (await fetch(`${line.url}/app/demo/webhooks`, { method: 'POST', headers, body: JSON.stringify({ name: 'slow', url, events: ['*'] }) })).json();
      const entry = await (await fetch(`${line.url}/app/demo/webhooks/${hook._id}/test`, { method: 'POST', headers })).json();
      expect(entry.response).toBeNull();
      expect(entry.error).toBe('Timed out after 300 ms');
      expect(entry.nextAttemptAt).toBeNull(); // the last attempt: no retry is scheduled
      const logs = await (await fetch(`${line.url}/app/demo/webhooks/${hook._id}/logs`, { headers })).json();
      expect(logs.meta.total).toBe(1); // no retries
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('refuses bad values with a clear message (exit 2)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--login-rate-limit=-1'], /--login-rate-limit must be an integer from 0/],
      [['--webhook-retry-delays', '1000,soon'], /--webhook-retry-delays must be up to 20 comma-separated delays in ms/],
      [['--webhook-timeout', '0'], /--webhook-timeout must be an integer from 1/],
      [['--upload-limit', '1e6'], /--upload-limit must be an integer/],
      [['--no-such-flag'], /Unknown option '--no-such-flag'/],
    ];
    for (const [flags, message] of cases) {
      const r = await exited(spawnCli(['serve', '--in-memory', '--port', '0', ...flags]));
      expect(r.code, flags.join(' ')).toBe(2);
      expect(r.stderr, flags.join(' ')).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  }, 90_000); // five starts of the CLI, one after another
});

describe('seed and dump files', () => {
  const oneLine = (r: { code: number | null; stderr: string; stdout: string }, message: RegExp) => {
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1); // no stack trace
  };

  it('a bad --seed stops the start with one line, naming the problem', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'broken.json'), '{ "format": ');
    writeFileSync(join(dir, 'invalid.json'), JSON.stringify({ format: 'homebase-dump', version: 1, schema: { collections: [{ _id: 'a', setting: { read: 'everyone' } }] } }));
    oneLine(await exited(spawnCli(['serve', '--in-memory', '--port', '0', '--seed', join(dir, 'missing.json')])), /Cannot read the seed file .*missing\.json: no such file/);
    oneLine(await exited(spawnCli(['serve', '--in-memory', '--port', '0', '--seed', join(dir, 'broken.json')])), /The seed file .*broken\.json is not valid JSON/);
    oneLine(await exited(spawnCli(['serve', '--in-memory', '--port', '0', '--seed', join(dir, 'invalid.json')])), /The seed file .*invalid\.json is not a valid dump: schema\.collections\[0\]\.setting\.read/);
  });

  it('homebase import names a dump file, not a seed file', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'invalid.json'), JSON.stringify({ format: 'homebase-dump', version: 1, records: { ghost: [] } }));
    oneLine(await exited(spawnCli(['import', '--data', join(dir, 'data'), join(dir, 'missing.json')])), /Cannot read the dump file .*missing\.json: no such file/);
    oneLine(await exited(spawnCli(['import', '--data', join(dir, 'data'), join(dir, 'invalid.json')])), /The dump file .*invalid\.json is not a valid dump: records\.ghost/);
  });

  it('the bin runs from another folder, and a relative --seed resolves against that folder', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'fixtures.json'), JSON.stringify({
      format: 'homebase-dump', version: 1,
      schema: { collections: [{ _id: 'people', setting: { read: 'public' } }] }, records: { people: [{ _id: 'ada', name: 'Ada' }] },
    }));
    const bin = fileURLToPath(new URL('../bin/homebase.js', import.meta.url));
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--in-memory', '--json', '--seed', 'fixtures.json'], {
      cwd: dir, env: { ...process.env, HOMEBASE_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const line = await new Promise<{ url: string }>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stdout!.on('data', (d) => { out += d; if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0])); });
      child.stderr!.on('data', (d) => { err += d; });
      child.on('exit', (c) => reject(new Error(`exited ${c}: ${err}`)));
    });
    const people = await (await fetch(`${line.url}/app/demo/database/people`)).json();
    expect(people.data.map((p: { name: string }) => p.name)).toEqual(['Ada']);
  });
});

describe('the first fifteen minutes', { timeout: 90_000 }, () => {
  const run = (args: string[], env: Record<string, string> = {}) => exited(spawnCli(args, env));

  it('homebase --help lists the commands and points to the API and the docs', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    for (const text of ['homebase serve', 'homebase admin', 'homebase export', 'homebase import', '/api/app/{app_id}', 'Docs:', 'README.md']) expect(stdout).toContain(text);
  });

  it('homebase serve --help describes every flag with its default and environment variable', async () => {
    const { SERVE_FLAGS } = await import('./cli-flags.js');
    const { code, stdout } = await run(['serve', '--help']);
    expect(code).toBe(0);
    for (const f of SERVE_FLAGS.filter((x) => x.name !== 'help')) {
      expect(stdout).toContain(`--${f.name}`);
      expect(stdout).toContain(`default: ${f.default}`);
      expect(stdout).toContain(`env ${f.env}`);
    }
    expect(stdout).toContain('Docs:');
    expect((await run(['admin', '--help'])).stdout).toContain('--reset-password');
    const readme = (await import('node:fs')).readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    for (const f of SERVE_FLAGS.filter((x) => x.name !== 'help')) expect(readme, `README documents --${f.name}`).toContain(`\`--${f.name}`);
  });

  it('prints the workspace API, the console link, the admin sign-in on every start, and one line per request', async () => {
    const dir = tmp();
    const start = async (extra: string[] = []) => {
      const child = spawnCli(['serve', '--port', '0', '--data', dir, ...extra]);
      children.push(child);
      let out = '';
      child.stdout!.on('data', (d) => { out += d; });
      await new Promise<void>((resolve, reject) => {
        const tick = setInterval(() => { if (/Console token: .*\n/.test(out)) { clearInterval(tick); resolve(); } }, 50);
        child.on('exit', (c) => { clearInterval(tick); reject(new Error(`exited ${c}: ${out}`)); });
      });
      return { child, out: () => out };
    };
    const first = await start();
    const text = first.out();
    const api = /Workspace API: +(http:\/\/127\.0\.0\.1:\d+\/api\/app\/demo)\s/.exec(text)![1];
    expect(text).toMatch(new RegExp(`Console: +http://127\\.0\\.0\\.1:\\d+/#token=hb_console_\\S+`));
    const password = /Admin: +admin@example\.com \/ (\S+) +\(generated on this first start/.exec(text)![1];
    const login = await fetch(`${api}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password }) });
    expect(login.status).toBe(200);
    await fetch(`${api}/database?token=secret-in-url`);
    await waitFor(() => /GET \/api\/app\/demo\/database 401 /.test(first.out()) && /POST \S+\/auth\/login 200 /.test(first.out()), 5000, 'the request lines');
    const lines = first.out().split('\n');
    expect(lines).toContain(`POST ${new URL(api).pathname}/auth/login 200 ${/POST \S+ 200 (\S+) ms/.exec(first.out())![1]} ms`);
    expect(first.out()).toMatch(/GET \/api\/app\/demo\/database 401 [\d.]+ ms/);
    expect(first.out()).not.toContain('secret-in-url');
    expect(first.out()).not.toContain('\x1b['); // no colour when stdout is not a terminal
    const stopped = exited(first.child);
    first.child.kill('SIGTERM');
    await stopped;

    // Second start: no password any more, but a command that signs in as the admin.
    const second = await start(['--quiet']);
    const command = /Admin token: +(.+?) admin (.*?)   \(add --reset-password/.exec(second.out())!;
    expect(second.out()).toMatch(/Admin: +admin@example\.com +\(password printed on the first start\)/);
    const args = command[2].split(' ').filter(Boolean);
    const minted = await run(['admin', ...args, '--data', dir]);
    expect(minted.code).toBe(0);
    const token = minted.stdout.trim();
    const secondApi = /Workspace API: +(\S+)/.exec(second.out())![1];
    expect((await fetch(`${secondApi}/database`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const reset = await run(['admin', ...args, '--data', dir, '--reset-password', '--json']);
    const { password: fresh, email } = JSON.parse(reset.stdout);
    expect(email).toBe('admin@example.com');
    const relogin = await fetch(`${secondApi}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: fresh }) });
    expect(relogin.status).toBe(200);
    // Stopped, with its output read to the end: a request line would be there by now.
    second.child.kill('SIGTERM');
    await closed(second.child);
    expect(second.out()).not.toMatch(/GET \/api\/app\/demo\/database 200/); // --quiet
  });

  it('request lines: colour only on a terminal (and not with NO_COLOR), token parameters cut', async () => {
    const { formatRequestLine, useColor } = await import('./cli-requests.js');
    expect(useColor({ isTTY: true } as never, {})).toBe(true);
    expect(useColor({ isTTY: true } as never, { NO_COLOR: '1' })).toBe(false);
    expect(useColor({ isTTY: false } as never, {})).toBe(false);
    expect(formatRequestLine('GET', '/api/app/demo/storage/x/download?token=abc&v=1', 200, 3.14159, false)).toBe('GET /api/app/demo/storage/x/download?v=1 200 3.1 ms');
    expect(formatRequestLine('POST', '/api/x', 404, 12.6, true)).toBe('\x1b[2mPOST\x1b[0m /api/x \x1b[33m404\x1b[0m \x1b[2m13 ms\x1b[0m');
  });

  it('with --json, stdout carries only the JSON line; request lines go to stderr', async () => {
    const { line, child, stderr } = await serve(['--port', '0', '--in-memory', '--admin-password', 'secret-pass-1']);
    let more = '';
    child.stdout!.on('data', (d) => { more += d; });
    await fetch(`${line.url}/health`);
    await waitFor(() => /GET \/api\/health 200 [\d.]+ ms/.test(stderr()), 5000, 'the request line on stderr');
    child.kill('SIGTERM');
    await closed(child);
    expect(more).toBe('');
  });

  it('environment variables set the flags (a flag on the command line wins)', async () => {
    const started = await serveJson(['--port', '0'], { HOMEBASE_IN_MEMORY: '1', HOMEBASE_WORKSPACE: 'shop', HOMEBASE_ADMIN_PASSWORD: 'secret-pass-1', HOMEBASE_PORT: '1' });
    children.push(started.child);
    const { line } = started;
    expect(line.workspaces).toEqual(['shop']);
    const bad = await run(['serve', '--in-memory'], { HOMEBASE_TOKEN_TTL: 'soon' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--token-ttl must be an integer');
  });

  it('homebase admin without a server works on the data folder, and finds a way out of a workspace without an admin', async () => {
    const dir = tmp();
    const dump = join(dir, '..', `noadmin-${process.pid}.json`);
    writeFileSync(dump, JSON.stringify({ format: 'homebase-dump', version: 1, users: [{ _id: 'u1', email: 'ann@example.test', password: 'ann-password-1' }] }));
    cleanups.push(() => rmSync(dump, { force: true }));
    const imported = await run(['import', '--data', dir, dump]);
    expect(imported.code).toBe(0);
    const added = /The dump has no administrator, so one was added: admin@example\.com \/ (\S+)/.exec(imported.stderr);
    expect(added).not.toBeNull();
    const offline = await run(['admin', '--data', dir, '--url', 'http://127.0.0.1:9', '--reset-password', '--password', 'new-admin-pass-1', '--json']);
    expect(offline.code).toBe(0);
    expect(JSON.parse(offline.stdout)).toMatchObject({ workspace: 'demo', email: 'admin@example.com', password: 'new-admin-pass-1' });
    const { line } = await serve(['--port', '0', '--data', dir]);
    const res = await fetch(`${line.url}/app/demo/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password: 'new-admin-pass-1' }) });
    expect(res.status).toBe(200);
    expect((await res.json()).user.role).toBe('admin');
    expect(await adminToken(line)).toMatch(/^ey/);
  });
});
