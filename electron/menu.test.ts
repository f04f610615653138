import { describe, expect, it, vi } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { appMenuTemplate, findItem, trayMenuTemplate, type MenuActions } from './menu.js';

const actions = () => Object.fromEntries(['copyApiUrl', 'openConsoleInBrowser', 'openDataFolder', 'changeDataFolder', 'useDefaultDataFolder',
  'restartServer', 'openApiReference', 'openLogsFolder', 'showWindow', 'quit'].map((k) => [k, vi.fn()])) as unknown as MenuActions & Record<string, ReturnType<typeof vi.fn>>;
const running = { apiUrl: 'http://127.0.0.1:4711/api', dataDir: '/data', usingDefaultFolder: true };
const click = (items: MenuItemConstructorOptions[], id: string) => (findItem(items, id)!.click as () => void)();

describe('menus', () => {
  it.each(['linux', 'win32', 'darwin'] as const)('the %s application menu has every server action, each wired to its action', (platform) => {
    const a = actions();
    const t = appMenuTemplate(running, a, platform);
    expect(findItem(t, 'api-url')!.label).toBe('API: http://127.0.0.1:4711/api');
    const wiring: [string, keyof MenuActions][] = [['copy-api-url', 'copyApiUrl'], ['open-in-browser', 'openConsoleInBrowser'],
      ['api-reference', 'openApiReference'], ['open-data-folder', 'openDataFolder'], ['change-data-folder', 'changeDataFolder'],
      ['restart-server', 'restartServer'], ['open-logs', 'openLogsFolder'], ['quit', 'quit']];
    for (const [id, action] of wiring) {
      click(t, id);
      expect(a[action], id).toHaveBeenCalledTimes(1);
    }
    expect(findItem(t, 'default-data-folder')!.enabled).toBe(false); // already on it
    expect(findItem(t, 'quit')!.accelerator).toBe('CmdOrCtrl+Q');
    if (platform === 'darwin') expect(t[0].label).toBe('Homebase');
  });

  it('without a running server the address items are disabled, Restart and the folder choice are not', () => {
    const t = appMenuTemplate({ usingDefaultFolder: false, dataDir: '/data' }, actions(), 'linux');
    expect(findItem(t, 'api-url')!.label).toBe('Server not running');
    for (const id of ['copy-api-url', 'open-in-browser', 'api-reference']) expect(findItem(t, id)!.enabled, id).toBe(false);
    for (const id of ['restart-server', 'change-data-folder', 'default-data-folder']) expect(findItem(t, id)!.enabled, id).not.toBe(false);
  });

  it('the tray menu opens the window, shows the address and quits', () => {
    const a = actions();
    const t = trayMenuTemplate(running, a);
    click(t, 'show-window');
    click(t, 'copy-api-url');
    click(t, 'quit');
    expect(a.showWindow).toHaveBeenCalled();
    expect(a.copyApiUrl).toHaveBeenCalled();
    expect(a.quit).toHaveBeenCalled();
    expect(findItem(t, 'api-url')!.label).toContain('4711');
  });
});
