// Desktop's own wiring, with a stand-in server host: the low-disk warning.
import { describe, expect, it, vi, beforeEach, afterEach } from 'vitest';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
vi.mock('electron', () => import('./test/electron-stub.js'));
import { resetStub, stub } from './test/electron-stub.js';
import { Desktop } from './desktop.js';
import { Settings } from './settings.js';
import type { ServerHost } from './server-host.js';
import type { ServerReady } from './server-protocol.js';

let dir: string;
beforeEach(() => { resetStub(); dir = mkdtempSync(join(tmpdir(), 'hb-desktop-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function fakeHost(dataDir: string) {
  const host = Object.assign(new EventEmitter(), {
    info: undefined as ServerReady | undefined,
    async start() {
      host.info = { port: 4700, url: 'http://127.0.0.1:4700/api', consoleUrl: 'http://127.0.0.1:4700', consoleToken: 't', workspaces: ['demo'], dataDir, preferredPortTaken: false };
      return host.info;
    },
    async stop() { host.info = undefined; },
  });
  return host;
}

describe('desktop', () => {
  it('warns when the disk holding the data folder runs low, with a way to open it', async () => {
    const data = join(dir, 'data');
    const paths = { defaultDataDir: data, logsDir: join(dir, 'logs'), preload: 'p', icon: 'i', trayIcon: 't', port: 4700 };
    const lines: string[] = [];
    stub.messageBoxAnswers.push(1); // "Open the Data Folder"
    const desktop = new Desktop(paths, new Settings(join(dir, 'settings.json')), { file: 'log', write: (l) => lines.push(l) },
      fakeHost(data) as unknown as ServerHost, () => {}, async () => 42 * 1024 * 1024);
    expect(await desktop.startServer()).toBe(true);
    await vi.waitFor(() => expect(stub.messageBoxes.map((b) => b.options.title)).toContain('Disk almost full'));
    const box = stub.messageBoxes.find((b) => b.options.title === 'Disk almost full')!;
    expect(box.options.detail).toContain(`Only 42 MB are left for ${data}`);
    await vi.waitFor(() => expect(stub.openedPaths).toEqual([data]));
    expect(lines.join('\n')).toContain('low disk space: 42 MB');
    await desktop.restart(); // the watch of the old start is stopped, a new one begun
    await vi.waitFor(() => expect(stub.messageBoxes.filter((b) => b.options.title === 'Disk almost full').length).toBe(2));
  });
});
