// The desktop app's lifecycle, run from main.ts against the stub of electron and the real server
// (in a child process, as the utility process would hold it): start, the window and its token,
// menu actions, the single window, closing the last window, changing the data folder, a folder
// another Homebase holds, a crash, and a graceful quit that releases the folder's lock.
import { describe, expect, it, vi, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
vi.mock('electron', () => import('./test/electron-stub.js'));
import { app, invoke, resetStub, stub, type FakeBrowserWindow } from './test/electron-stub.js';
import { findItem } from './menu.js';
import { INVOKE_CHANNELS } from './channels.js';
import { startServer } from '../server/index.js';

let dir: string;
let blocker: net.Server;
let wantedPort: number;
const userData = () => join(dir, 'appData', 'Homebase');
const win = () => stub.windows.filter((w) => !w.isDestroyed()).at(-1) as FakeBrowserWindow;
const menuClick = (id: string) => (findItem(stub.appMenu!.template, id)!.click as () => void)();
const consoleUrl = () => { const u = new URL(win().loads.at(-1)!); return u.origin; };
const trusted = (w: FakeBrowserWindow) => ({ sender: w.webContents, senderFrame: { url: w.webContents.url, parent: null } });
const token = () => invoke(INVOKE_CHANNELS.getConsoleToken, trusted(win())) as Promise<string>;
/** macOS has no tray icon (the Dock and the menu bar do its work). */
const hasTray = process.platform !== 'darwin';
const settingsFile = () => JSON.parse(readFileSync(join(userData(), 'settings.json'), 'utf8'));
/** Waits for the window to load a console other than `previous`. */
async function nextConsole(previous: string | undefined) {
  await vi.waitFor(() => { expect(win()?.loads.at(-1)).toBeDefined(); expect(consoleUrl()).not.toBe(previous); }, { timeout: 45_000, interval: 100 });
  return consoleUrl();
}
async function reloaded(loadsBefore: number) {
  await vi.waitFor(() => expect(win().loads.length).toBeGreaterThan(loadsBefore), { timeout: 45_000, interval: 100 });
  return consoleUrl();
}

beforeAll(async () => {
  resetStub();
  dir = mkdtempSync(join(tmpdir(), 'hb-main-'));
  stub.paths.appData = join(dir, 'appData');
  // The wanted port is taken, as 4700 may be on a developer's machine.
  blocker = net.createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  wantedPort = (blocker.address() as net.AddressInfo).port;
  process.env.HOMEBASE_DESKTOP_PORT = String(wantedPort);
  await import('./main.js');
  app.becomeReady();
}, 60_000);

afterAll(async () => {
  delete process.env.HOMEBASE_DESKTOP_PORT;
  blocker.close();
  for (const f of stub.forks) f.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('desktop app lifecycle', () => {
  let origin: string;

  it('starts the server, then opens one locked-down window on its console, token through the preload', async () => {
    origin = await nextConsole(undefined);
    expect(app.getName()).toBe('Homebase');
    expect(stub.paths.userData).toBe(userData());
    expect(stub.forks).toHaveLength(1);
    expect(JSON.parse(stub.forks[0].args[0])).toEqual({ data: join(userData(), 'data'), port: wantedPort });
    expect(stub.windows).toHaveLength(1);
    expect(win().options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    expect(win().options.webPreferences.preload).toMatch(/preload\.cjs$/);
    expect(win().loads).toEqual([`${origin}/`]);
    expect(win().getTitle()).toBe(`Homebase (${origin.slice('http://'.length)})`);
    expect(stub.headersReceived).toBeTypeOf('function');
    expect(stub.permissionRequest).toBeTypeOf('function');

    const t = await token();
    expect((await fetch(`${origin}/api/workspaces`, { headers: { authorization: `Bearer ${t}` } })).status).toBe(200);
    await expect(invoke(INVOKE_CHANNELS.getConsoleToken, { ...trusted(win()), senderFrame: { url: 'https://evil.example/', parent: null } })).rejects.toThrow(/Refused/);

    // The port fallback and the generated admin are told, once, in dialogs.
    const boxes = stub.messageBoxes.map((b) => b.options.title);
    expect(boxes).toEqual(expect.arrayContaining(['Another port', 'Workspace created']));
    expect(stub.messageBoxes.find((b) => b.options.title === 'Another port')!.options.message).toContain(`Port ${wantedPort} is in use`);
    const log = readFileSync(join(userData(), 'logs', 'homebase.log'), 'utf8');
    expect(log).toContain(`server ready at ${origin}`);
    expect(log).not.toContain(t);
    expect(log).not.toMatch(/Password: /);
  }, 60_000);

  it('the menus show the real address and act on it', async () => {
    expect(findItem(stub.appMenu!.template, 'api-url')!.label).toBe(`API: ${origin}/api`);
    if (hasTray) expect(findItem(stub.trays[0].menu!.template, 'api-url')!.label).toBe(`API: ${origin}/api`);
    menuClick('copy-api-url');
    expect(stub.clipboard).toBe(`${origin}/api`);
    menuClick('open-in-browser');
    expect(stub.externalUrls.at(-1)).toBe(`${origin}/#token=${encodeURIComponent(await token())}`);
    menuClick('open-data-folder');
    expect(stub.openedPaths.at(-1)).toBe(join(userData(), 'data'));
    menuClick('open-logs');
    expect(stub.openedPaths.at(-1)).toBe(join(userData(), 'logs'));
    menuClick('api-reference');
    expect(win().loads.at(-1)).toBe(`${origin}/app/demo/api/`);
    // The window's guards: other origins leave for the browser.
    expect(win().webContents.navigate('will-navigate', 'https://example.com/x')).toBe(true);
    expect(stub.externalUrls.at(-1)).toBe('https://example.com/x');
    expect(win().webContents.navigate('will-navigate', `${origin}/app/demo`)).toBe(false);
  });

  it('a second launch focuses the window', () => {
    const w = win();
    w.visible = false; w.focused = false; w.minimized = true;
    app.emit('second-instance', {}, [], '/');
    expect(w).toMatchObject({ visible: true, focused: true, minimized: false });
    expect(stub.windows).toHaveLength(1);
  });

  it('closing the last window keeps the server running (said once); the tray brings it back', async () => {
    win().close();
    expect(stub.windows.every((w) => w.isDestroyed())).toBe(true);
    expect(stub.quitCalls).toBe(0);
    expect(stub.notifications).toHaveLength(1);
    expect(stub.notifications[0].title).toBe('Homebase is still running');
    expect((await fetch(`${origin}/api/health`)).status).toBe(200);
    expect(settingsFile().closeNoticeShown).toBe(true);
    expect(settingsFile().window).toMatchObject({ width: 1280, height: 820 });
    if (hasTray) (findItem(stub.trays[0].menu!.template, 'show-window')!.click as () => void)();
    else app.emit('activate');
    expect(stub.windows).toHaveLength(2);
    expect(win().loads).toEqual([`${origin}/`]);
    win().close();
    expect(stub.notifications).toHaveLength(1); // told once
    app.emit('activate');
    expect(stub.windows).toHaveLength(3);
  });

  it('changing the data folder restarts the server on it and keeps the choice', async () => {
    const chosen = join(dir, 'chosen');
    stub.openDialogAnswers.push(chosen);
    menuClick('change-data-folder');
    origin = await nextConsole(origin); // a new server: the port may differ, the token does
    await vi.waitFor(() => expect(existsSync(join(chosen, '.lock'))).toBe(true), { timeout: 10_000 });
    expect(existsSync(join(userData(), 'data', '.lock'))).toBe(false);
    expect(settingsFile().dataDir).toBe(chosen);
    expect(JSON.parse(stub.forks.at(-1)!.args[0]).data).toBe(chosen);
    const t = await token();
    expect((await fetch(`${origin}/api/workspaces`, { headers: { authorization: `Bearer ${t}` } })).status).toBe(200);
    expect(findItem(stub.appMenu!.template, 'default-data-folder')!.enabled).toBe(true);
  }, 60_000);

  it('a folder held by another Homebase is refused with a dialog; choosing another folder runs there', async () => {
    const held = join(dir, 'held');
    const other = await startServer({ data: held, port: 0 });
    try {
      const elsewhere = join(dir, 'elsewhere');
      stub.openDialogAnswers.push(held, elsewhere);
      stub.messageBoxAnswers.push(1); // "Choose Another Folder…"
      const boxes = stub.messageBoxes.length;
      menuClick('change-data-folder');
      origin = await nextConsole(origin);
      const box = stub.messageBoxes.slice(boxes).find((b) => b.options.title === 'Data folder in use')!;
      expect(box.options.detail).toMatch(/Stop the other Homebase/);
      expect(box.options.buttons).toEqual(['Try Again', 'Choose Another Folder…', 'Use the Default Folder', 'Quit']);
      expect(settingsFile().dataDir).toBe(elsewhere);
      expect((await fetch(`${other.url}/health`)).status).toBe(200); // the other one untouched
    } finally { await other.close(); }
  }, 60_000);

  it('a server crash is shown in a dialog, and Restart brings it back', async () => {
    const boxes = stub.messageBoxes.length;
    const loads = win().loads.length;
    stub.messageBoxAnswers.push(0); // "Restart the Server"
    stub.forks.at(-1)!.child.kill('SIGKILL');
    await reloaded(loads);
    origin = consoleUrl();
    const box = stub.messageBoxes.slice(boxes).find((b) => b.options.title === 'Server stopped')!;
    expect(box.options.detail).toContain(join(userData(), 'logs', 'homebase.log'));
    expect((await fetch(`${origin}/api/health`)).status).toBe(200);
  }, 60_000);

  it('Restart the Server restarts it on the same folder', async () => {
    const loads = win().loads.length;
    const forks = stub.forks.length;
    menuClick('restart-server');
    await reloaded(loads);
    expect(stub.forks.length).toBe(forks + 1);
    expect(JSON.parse(stub.forks.at(-1)!.args[0]).data).toBe(join(dir, 'elsewhere'));
    origin = consoleUrl();
  }, 60_000);

  it('Quit stops the server gracefully: writes kept, lock released, then the app ends', async () => {
    const folder = join(dir, 'elsewhere');
    const created = await fetch(`${origin}/api/workspaces`, { method: 'POST', headers: { authorization: `Bearer ${await token()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ _id: 'beforequit', name: 'Before quit', admin: { email: 'q@example.com', password: 'password-123' } }) });
    expect(created.status).toBe(201);
    const quit = new Promise((r) => app.once('quit', r));
    menuClick('quit');
    expect(existsSync(join(folder, '.lock'))).toBe(true); // the first quit waits for the server
    await quit;
    expect(existsSync(join(folder, '.lock'))).toBe(false);
    if (hasTray) expect(stub.trays[0].destroyed).toBe(true);
    await expect(fetch(`${origin}/api/health`)).rejects.toThrow();
    const again = await startServer({ data: folder, port: 0 });
    try { expect(again.ctx.registry.list().map((w) => w._id)).toContain('beforequit'); } finally { await again.close(); }
    expect(readFileSync(join(userData(), 'logs', 'homebase.log'), 'utf8')).toMatch(/server stopped; bye/);
  }, 60_000);
});
