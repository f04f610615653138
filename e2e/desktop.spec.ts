// The desktop app itself, driven by Playwright's Electron support: the built shell
// (dist/electron/main.js) on a fresh user profile, its window on the console, the token handed
// over by the preload, nothing of Node in the page, and Quit releasing the data folder.
// Electron's binary cannot be downloaded on CI machines (its install script is skipped), so this
// spec skips itself there; wherever `npm run desktop` has fetched the binary, it runs.
import { test, expect, _electron as electron } from '@playwright/test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const electronDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
const pathFile = join(electronDir, 'path.txt');
const binary = existsSync(pathFile) ? join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim()) : undefined;
const main = join(root, 'dist', 'electron', 'main.js');

test.skip(!binary || !existsSync(binary), "Electron's binary is not installed here (its download is skipped on CI); run `npm run desktop` once to fetch it, then this spec runs");
test.skip(!existsSync(main), 'The shell is not built: run `npm run build` first');

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

test('the desktop window shows the console, signed in through the preload, and Quit releases the data folder', async () => {
  test.setTimeout(90_000);
  const home = mkdtempSync(join(tmpdir(), 'homebase-desktop-'));
  const port = await freePort();
  // A fresh profile on every OS: userData is <appData>/Homebase.
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), APPDATA: join(home, 'AppData'), HOMEBASE_DESKTOP_PORT: String(port) } as Record<string, string>;
  delete env.ELECTRON_RUN_AS_NODE;
  const app = await electron.launch({ executablePath: binary, args: [main, ...(process.platform === 'linux' ? ['--no-sandbox'] : [])], env, cwd: root });
  try {
    const userData = await app.evaluate(({ app: a }) => a.getPath('userData'));
    const logs = await app.evaluate(({ app: a }) => a.getPath('logs'));
    expect(userData.endsWith('Homebase')).toBe(true);
    const win = await app.firstWindow();
    await expect(win).toHaveURL(`http://127.0.0.1:${port}/`, { timeout: 30_000 });
    expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0].getTitle())).toContain(`127.0.0.1:${port}`);

    // The page gets exactly window.homebase.getConsoleToken(), and no Node.
    expect(await win.evaluate(() => Object.keys((window as unknown as { homebase: object }).homebase))).toEqual(['getConsoleToken']);
    expect(await win.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
    expect(await win.evaluate(() => typeof (globalThis as { process?: unknown }).process)).toBe('undefined');
    const status = await win.evaluate(async () => {
      const token = await (window as unknown as { homebase: { getConsoleToken(): Promise<string> } }).homebase.getConsoleToken();
      return (await fetch('/api/workspaces', { headers: { authorization: `Bearer ${token}` } })).status;
    });
    expect(status).toBe(200);
    // The console signs in with it: the demo workspace is listed, no token asked for.
    await expect(win.getByText('demo').first()).toBeVisible({ timeout: 15_000 });
    expect(win.url()).not.toContain('token');

    // window.open is denied (and would go to the user's browser), navigation stays on the console.
    expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
    await win.evaluate(() => { window.open('about:blank'); });
    expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);

    expect(existsSync(join(userData, 'data', '.lock'))).toBe(true);
    await Promise.all([app.waitForEvent('close'), app.evaluate(({ app: a }) => a.quit())]);
    expect(existsSync(join(userData, 'data', '.lock'))).toBe(false);
    expect(readFileSync(join(logs, 'homebase.log'), 'utf8')).toContain('server stopped; bye');
  } finally {
    await app.close().catch(() => {});
    rmSync(home, { recursive: true, force: true });
  }
});
