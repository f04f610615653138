// The server host with the real server behind it (a Node child running server-process.ts, as
// Electron's utilityProcess would): start, failures, graceful stop and crash.
import { describe, expect, it, vi, beforeEach, afterEach } from 'vitest';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
vi.mock('electron', () => import('./test/electron-stub.js'));
import { stub, utilityProcess } from './test/electron-stub.js';
import { ServerHost, ServerStartError, crashFailure, type ServerChild } from './server-host.js';
import { choosePort, classifyStartError } from './server-runner.js';
import { DataFolderLockedError } from '../server/storage/lock.js';
import { startServer } from '../server/index.js';

const entry = fileURLToPath(new URL('./server-process.ts', import.meta.url));
const fork = (e: string, args: string[]) => utilityProcess.fork(e, args) as unknown as ServerChild;

let dir: string;
let lines: string[];
const hosts: ServerHost[] = [];
const newHost = () => { const h = new ServerHost(fork, entry, (l) => lines.push(l), '/logs/homebase.log'); hosts.push(h); return h; };
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'hb-host-')); lines = []; });
afterEach(async () => { for (const h of hosts.splice(0)) await h.stop(); rmSync(dir, { recursive: true, force: true }); });

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('server host', () => {
  it('starts the real server, hands over its token, and a graceful stop keeps writes and releases the lock', async () => {
    const port = await freePort();
    const host = newHost();
    const info = await host.start({ data: join(dir, 'data'), port });
    expect(info).toMatchObject({ port, url: `http://127.0.0.1:${port}/api`, consoleUrl: `http://127.0.0.1:${port}`, preferredPortTaken: false, workspaces: ['demo'] });
    expect(info.consoleToken).toMatch(/^\S{20,}$/);
    expect(info.generatedAdmin).toMatchObject({ workspace: 'demo', email: 'admin@example.com' });
    expect(existsSync(join(dir, 'data', '.lock'))).toBe(true);
    // The token works on the console API; a workspace made now must survive the stop.
    const created = await fetch(`${info.url}/workspaces`, { method: 'POST', headers: { authorization: `Bearer ${info.consoleToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ _id: 'kept', name: 'Kept', admin: { email: 'a@example.com', password: 'password-123' } }) });
    expect(created.status).toBe(201);
    // Nothing secret reaches the log.
    expect(lines.join('\n')).not.toContain(info.consoleToken);
    expect(lines.join('\n')).not.toContain(info.generatedAdmin!.password);

    await host.stop();
    expect(host.running).toBe(false);
    expect(existsSync(join(dir, 'data', '.lock'))).toBe(false);
    await expect(fetch(`${info.url}/health`)).rejects.toThrow();
    const again = await startServer({ data: join(dir, 'data'), port: 0 });
    try {
      expect(again.ctx.registry.list().map((w) => w._id).sort()).toEqual(['demo', 'kept']);
      expect(again.consoleToken).toBe(info.consoleToken);
    } finally { await again.close(); }
  });

  it('takes a free port when the wanted one is in use, and says so', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      expect(await choosePort(taken)).toBe(0);
      const info = await newHost().start({ data: join(dir, 'data'), port: taken });
      expect(info.port).not.toBe(taken);
      expect(info.preferredPortTaken).toBe(true);
      expect((await fetch(`${info.url}/health`)).status).toBe(200);
    } finally { blocker.close(); }
  });

  it('a folder another Homebase holds is refused with folder-locked, and the other server is untouched', async () => {
    const other = await startServer({ data: join(dir, 'data'), port: 0 });
    try {
      const crashed = vi.fn();
      const host = newHost();
      host.on('crashed', crashed);
      const err = await host.start({ data: join(dir, 'data'), port: await freePort() }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerStartError);
      expect((err as ServerStartError).failure).toMatchObject({ kind: 'folder-locked', path: join(dir, 'data') });
      expect((err as ServerStartError).failure.message).toMatch(/in use by another Homebase server/);
      // The process has exited once the host no longer runs it (the crash check runs at that exit).
      await vi.waitFor(() => expect(host.running).toBe(false));
      expect(crashed).not.toHaveBeenCalled(); // a refused start is not a crash
      expect((await fetch(`${other.url}/health`)).status).toBe(200);
    } finally { await other.close(); }
  });

  it('a data folder that cannot be created is no-access', async () => {
    writeFileSync(join(dir, 'file'), 'x');
    const err = await newHost().start({ data: join(dir, 'file', 'data'), port: await freePort() }).catch((e: unknown) => e);
    expect((err as ServerStartError).failure).toMatchObject({ kind: 'no-access', path: join(dir, 'file', 'data') });
  });

  it('a crash is reported (not on a stop), with the log file to read', async () => {
    const host = newHost();
    const crashed = new Promise((resolve) => host.on('crashed', resolve));
    await host.start({ data: join(dir, 'data'), port: await freePort() });
    stub.forks.at(-1)!.child.kill('SIGKILL'); // as a crash would end it
    await expect(crashed).resolves.toMatchObject({ kind: 'crash', path: '/logs/homebase.log' });
    expect(host.running).toBe(false);
    expect(host.info).toBeUndefined();
    // The next start takes over the lock the killed server left.
    const next = await host.start({ data: join(dir, 'data'), port: await freePort() });
    expect((await fetch(`${next.url}/health`)).status).toBe(200);
  });

  it('classifies start errors and a crash after a full disk', () => {
    const e = (code: string) => Object.assign(new Error(code), { code });
    expect(classifyStartError(new DataFolderLockedError('locked'), '/d').kind).toBe('folder-locked');
    expect(classifyStartError(e('ENOSPC'), '/d')).toMatchObject({ kind: 'disk-full', path: '/d' });
    expect(classifyStartError(e('EROFS'), '/d').kind).toBe('no-access');
    expect(classifyStartError(e('EACCES'), '/d').kind).toBe('no-access');
    expect(classifyStartError(e('EADDRINUSE'), '/d').kind).toBe('port');
    expect(classifyStartError(new Error('odd'), '/d').kind).toBe('other');
    expect(crashFailure(1, ['Error: ENOSPC: no space left on device, write'], '/l').kind).toBe('disk-full');
    expect(crashFailure(134, ['something else'], '/l')).toMatchObject({ kind: 'crash', exitCode: 134 });
  });
});
