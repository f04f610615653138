// The application menu and the tray menu: the API address with Copy, the console in the
// browser, the data folder (open, change), Restart, the API reference, the logs, Quit. Built
// from the server's current state and rebuilt when it changes.
import type { MenuItemConstructorOptions } from 'electron';

export interface MenuActions {
  copyApiUrl(): void;
  openConsoleInBrowser(): void;
  openDataFolder(): void;
  changeDataFolder(): void;
  useDefaultDataFolder(): void;
  restartServer(): void;
  openApiReference(): void;
  openLogsFolder(): void;
  showWindow(): void;
  quit(): void;
}

export interface MenuState {
  /** `http://127.0.0.1:PORT/api` while the server runs. */
  apiUrl?: string;
  dataDir?: string;
  usingDefaultFolder: boolean;
}

export function serverItems(s: MenuState, a: MenuActions): MenuItemConstructorOptions[] {
  const running = !!s.apiUrl;
  return [
    { id: 'api-url', label: running ? `API: ${s.apiUrl}` : 'Server not running', enabled: false },
    { id: 'copy-api-url', label: 'Copy API URL', enabled: running, click: () => a.copyApiUrl() },
    { id: 'open-in-browser', label: 'Open the Console in the Browser', enabled: running, click: () => a.openConsoleInBrowser() },
    { id: 'api-reference', label: 'Open the API Reference', enabled: running, click: () => a.openApiReference() },
    { type: 'separator' },
    { id: 'open-data-folder', label: 'Open the Data Folder', enabled: !!s.dataDir, click: () => a.openDataFolder() },
    { id: 'change-data-folder', label: 'Change the Data Folder…', click: () => a.changeDataFolder() },
    { id: 'default-data-folder', label: 'Use the Default Data Folder', enabled: !s.usingDefaultFolder, click: () => a.useDefaultDataFolder() },
    { id: 'restart-server', label: 'Restart the Server', click: () => a.restartServer() },
    { id: 'open-logs', label: 'Open the Logs Folder', click: () => a.openLogsFolder() },
  ];
}

export function appMenuTemplate(s: MenuState, a: MenuActions, platform: NodeJS.Platform): MenuItemConstructorOptions[] {
  const quit: MenuItemConstructorOptions = { id: 'quit', label: 'Quit Homebase', accelerator: 'CmdOrCtrl+Q', click: () => a.quit() };
  const server: MenuItemConstructorOptions = { label: 'Server', submenu: serverItems(s, a) };
  const edit: MenuItemConstructorOptions = { role: 'editMenu' };
  const view: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [{ role: 'reload' }, { role: 'toggleDevTools' }, { type: 'separator' }, { role: 'resetZoom' },
      { role: 'zoomIn' }, { role: 'zoomOut' }, { type: 'separator' }, { role: 'togglefullscreen' }],
  };
  if (platform === 'darwin') {
    return [
      { label: 'Homebase', submenu: [{ role: 'about' }, { type: 'separator' }, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, { type: 'separator' }, quit] },
      server, edit, view, { role: 'windowMenu' },
    ];
  }
  return [{ label: 'File', submenu: [{ id: 'show-window', label: 'Show the Console Window', click: () => a.showWindow() }, { type: 'separator' }, quit] },
    server, edit, view];
}

export function trayMenuTemplate(s: MenuState, a: MenuActions): MenuItemConstructorOptions[] {
  return [
    { id: 'show-window', label: 'Show the Console Window', click: () => a.showWindow() },
    { type: 'separator' },
    ...serverItems(s, a),
    { type: 'separator' },
    { id: 'quit', label: 'Quit Homebase', click: () => a.quit() },
  ];
}

/** Finds an item by id in a template (tests and the tray use it). */
export function findItem(items: MenuItemConstructorOptions[], id: string): MenuItemConstructorOptions | undefined {
  for (const item of items) {
    if (item.id === id) return item;
    const found = Array.isArray(item.submenu) ? findItem(item.submenu, id) : undefined;
    if (found) return found;
  }
  return undefined;
}
