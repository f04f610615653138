// The console window: created hidden and shown when ready, locked down (see security.ts), its
// size and position remembered in the settings, its title showing the server's real address.
import { BrowserWindow, screen, type BrowserWindowConstructorOptions, type Rectangle } from 'electron';
import type { Settings, WindowBounds } from './settings.js';

export const DEFAULT_SIZE = { width: 1280, height: 820 };

export function windowOptions(preload: string, icon: string, bounds: WindowBounds | undefined): BrowserWindowConstructorOptions {
  return {
    ...DEFAULT_SIZE,
    ...(bounds ? { x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height } : {}),
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Homebase',
    icon,
    backgroundColor: '#ffffff',
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  };
}

/** Saved bounds are used only when they still overlap a screen (a monitor may be gone). */
export function visibleBounds(bounds: WindowBounds | undefined, workAreas: Rectangle[]): WindowBounds | undefined {
  if (!bounds) return undefined;
  if (bounds.x === undefined || bounds.y === undefined) return { width: bounds.width, height: bounds.height, maximized: bounds.maximized };
  const { x, y, width, height } = bounds as Required<WindowBounds>;
  const overlaps = workAreas.some((a) => x < a.x + a.width - 50 && x + width > a.x + 50 && y < a.y + a.height - 50 && y + height > a.y);
  return overlaps ? bounds : { width, height, maximized: bounds.maximized };
}

export function windowTitle(pageTitle: string | undefined, consoleUrl: string | undefined): string {
  const address = consoleUrl ? consoleUrl.replace(/^https?:\/\//, '') : 'starting…';
  return pageTitle && pageTitle !== 'Homebase' ? `${pageTitle} — Homebase (${address})` : `Homebase (${address})`;
}

export function createConsoleWindow(opts: { preload: string; icon: string; settings: Settings; consoleUrl: () => string | undefined }): BrowserWindow {
  const saved = visibleBounds(opts.settings.get('window'), screen.getAllDisplays().map((d) => d.workArea));
  const win = new BrowserWindow(windowOptions(opts.preload, opts.icon, saved));
  if (saved?.maximized) win.maximize();
  win.once('ready-to-show', () => win.show());
  win.on('page-title-updated', (event, title) => {
    event.preventDefault();
    win.setTitle(windowTitle(title, opts.consoleUrl()));
  });

  let timer: NodeJS.Timeout | undefined;
  const save = () => {
    clearTimeout(timer);
    if (win.isDestroyed() || win.isMinimized() || win.isFullScreen()) return;
    const b = win.getNormalBounds();
    opts.settings.set('window', { x: b.x, y: b.y, width: b.width, height: b.height, maximized: win.isMaximized() });
  };
  const saveSoon = () => { clearTimeout(timer); timer = setTimeout(save, 500); };
  win.on('resize', saveSoon);
  win.on('move', saveSoon);
  win.on('maximize', save);
  win.on('unmaximize', save);
  win.on('close', save);
  return win;
}

/** Loads the console from the server (the window title shows the address). */
export function showConsole(win: BrowserWindow, consoleUrl: string, path = '/'): Promise<void> {
  win.setTitle(windowTitle(undefined, consoleUrl));
  return win.loadURL(consoleUrl + path);
}
