// Where the app keeps things. The app is named Homebase whatever launched it (a packaged app,
// or `electron dist/electron/main.js` from a checkout, which would otherwise be "Electron"), so
// that data lives in <appData>/Homebase on every OS.
import type { App } from 'electron';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const APP_NAME = 'Homebase';
/** The desktop app's port: 4700 when free, else a free one. */
export const DESKTOP_PORT = 4700;

export function nameTheApp(app: App): void {
  app.setName(APP_NAME);
  app.setPath('userData', join(app.getPath('appData'), APP_NAME));
  // Logs beside the data on Linux and Windows (<userData>/logs); macOS uses ~/Library/Logs/Homebase.
  app.setAppLogsPath();
}

/** HOMEBASE_DESKTOP_PORT picks another preferred port (1-65535); anything else means 4700. */
export function desktopPort(value: string | undefined): number {
  const n = Number(value);
  return value && /^\d+$/.test(value) && n >= 1 && n <= 65535 ? n : DESKTOP_PORT;
}

const here = dirname(fileURLToPath(import.meta.url));
/** `.js` when running the build, `.ts` when tests import the sources. */
const ext = extname(fileURLToPath(import.meta.url));

export function appPaths(app: App) {
  const userData = app.getPath('userData');
  const resources = join(here, '..', ext === '.ts' ? '' : '..', 'resources');
  return {
    settingsFile: join(userData, 'settings.json'),
    defaultDataDir: join(userData, 'data'),
    logsDir: app.getPath('logs'),
    preload: join(here, 'preload.cjs'),
    serverEntry: join(here, `server-process${ext}`),
    icon: join(resources, 'icon.png'),
    trayIcon: join(resources, 'tray.png'),
    port: desktopPort(process.env.HOMEBASE_DESKTOP_PORT),
  };
}
