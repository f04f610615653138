import { describe, expect, it, vi, beforeEach, afterEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
vi.mock('electron', () => import('./test/electron-stub.js'));
import { resetStub, stub } from './test/electron-stub.js';
import { Settings } from './settings.js';
import { createConsoleWindow, visibleBounds, windowOptions, windowTitle } from './window.js';

let dir: string;
beforeEach(() => { resetStub(); dir = mkdtempSync(join(tmpdir(), 'hb-window-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('console window', () => {
  it('is isolated, sandboxed, without Node, and hidden until ready', () => {
    const o = windowOptions('/p/preload.cjs', '/r/icon.png', undefined);
    expect(o.webPreferences).toMatchObject({
      preload: '/p/preload.cjs', contextIsolation: true, sandbox: true, nodeIntegration: false, nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false, webSecurity: true, allowRunningInsecureContent: false, webviewTag: false,
    });
    expect(o.show).toBe(false);
  });

  it('remembers its size and position across launches', async () => {
    const settings = new Settings(join(dir, 'settings.json'));
    const win = createConsoleWindow({ preload: 'p', icon: 'i', settings, consoleUrl: () => 'http://127.0.0.1:4700' }) as any;
    expect(win.visible).toBe(false);
    await win.loadURL('http://127.0.0.1:4700/');
    expect(win.visible).toBe(true); // shown once ready
    win.setBounds({ x: 200, y: 150, width: 1000, height: 700 });
    win.close();
    expect(new Settings(join(dir, 'settings.json')).get('window')).toEqual({ x: 200, y: 150, width: 1000, height: 700, maximized: false });
    const again = createConsoleWindow({ preload: 'p', icon: 'i', settings: new Settings(join(dir, 'settings.json')), consoleUrl: () => undefined }) as any;
    expect(again.options).toMatchObject({ x: 200, y: 150, width: 1000, height: 700 });
    expect(stub.windows).toHaveLength(2);
  });

  it('a remembered maximised window opens maximised; bounds on a screen that is gone are dropped', () => {
    const settings = new Settings(join(dir, 'settings.json'));
    settings.set('window', { x: 5000, y: 4000, width: 900, height: 600, maximized: true });
    const win = createConsoleWindow({ preload: 'p', icon: 'i', settings, consoleUrl: () => undefined }) as any;
    expect(win.maximized).toBe(true);
    expect(win.options.x).toBeUndefined();
    expect(win.options.width).toBe(900);
    expect(visibleBounds({ x: 10, y: 10, width: 800, height: 600 }, [{ x: 0, y: 0, width: 1920, height: 1080 }])).toMatchObject({ x: 10 });
  });

  it('the title shows the real address, the page title in front', () => {
    expect(windowTitle(undefined, 'http://127.0.0.1:4712')).toBe('Homebase (127.0.0.1:4712)');
    expect(windowTitle('Users', 'http://127.0.0.1:4712')).toBe('Users — Homebase (127.0.0.1:4712)');
    const settings = new Settings(join(dir, 'settings.json'));
    const win = createConsoleWindow({ preload: 'p', icon: 'i', settings, consoleUrl: () => 'http://127.0.0.1:4712' }) as any;
    let prevented = false;
    win.emit('page-title-updated', { preventDefault: () => { prevented = true; } }, 'Database');
    expect(prevented).toBe(true);
    expect(win.getTitle()).toBe('Database — Homebase (127.0.0.1:4712)');
  });
});
