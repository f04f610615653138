// The desktop app's main process: lifecycle only. The server runs in a utility process
// (server-host.ts), the window shows its console (window.ts, security.ts), the menus and tray
// act on it (menu.ts, desktop.ts), the preload hands the console its token (ipc.ts).
import { app, ipcMain, session, shell, utilityProcess } from 'electron';
import { Desktop } from './desktop.js';
import { registerIpc } from './ipc.js';
import { openLog } from './logs.js';
import { appPaths, nameTheApp } from './paths.js';
import { guardWebContents, isExternalWebUrl, originOf, secureSession } from './security.js';
import { ServerHost, type ServerChild } from './server-host.js';
import { Settings } from './settings.js';

nameTheApp(app);

// One instance per user: a second launch hands over to the first (which shows its window) and ends.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  const paths = appPaths(app);
  const log = openLog(paths.logsDir);
  log.write(`Homebase ${app.getVersion()} starting (Electron ${process.versions.electron}, ${process.platform})`);
  const settings = new Settings(paths.settingsFile);
  const fork = (entry: string, args: string[]) => utilityProcess.fork(entry, args, {
    serviceName: 'Homebase server', stdio: 'pipe', env: { ...process.env, NODE_ENV: 'production', HOMEBASE_LOG_LEVEL: process.env.HOMEBASE_LOG_LEVEL ?? 'info' },
  }) as unknown as ServerChild;
  const host = new ServerHost(fork, paths.serverEntry, (line) => log.write(line), log.file);
  let quitState: 'running' | 'stopping' | 'stopped' = 'running';
  const desktop = new Desktop(paths, settings, log, host, () => app.quit());
  const consoleOrigin = () => (host.info ? originOf(host.info.consoleUrl) : undefined);
  const openExternal = (url: string) => { if (isExternalWebUrl(url)) void shell.openExternal(url); };

  app.on('second-instance', () => { if (app.isReady() && quitState === 'running') desktop.openWindow(); });

  // Every web contents the app ever makes gets the navigation and new-window guards.
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, consoleOrigin, openExternal));

  void app.whenReady().then(async () => {
    secureSession(session.defaultSession, consoleOrigin);
    registerIpc(ipcMain, {
      consoleContents: () => (desktop.win && !desktop.win.isDestroyed() ? desktop.win.webContents : undefined),
      consoleOrigin,
      consoleToken: () => host.info?.consoleToken,
    }, (line) => log.write(line));
    desktop.refreshMenus();
    if (!(await desktop.startServer())) return app.quit();
    if (process.platform !== 'darwin') desktop.createTray();
    desktop.openWindow();
  }).catch((err: unknown) => {
    log.write(`start failed: ${(err as Error)?.stack ?? String(err)}`);
    app.exit(1);
  });

  // macOS: the dock icon reopens the window.
  app.on('activate', () => { if (app.isReady() && quitState === 'running' && host.info) desktop.openWindow(); });

  // Closing the last window keeps the server running where a tray (or macOS's menu bar) can
  // reach it again; the user is told so once.
  app.on('window-all-closed', () => {
    if (quitState !== 'running') return;
    if (process.platform !== 'darwin' && !desktop.tray) return app.quit();
    log.write('last window closed; the server keeps running');
    if (!settings.get('closeNoticeShown')) {
      settings.set('closeNoticeShown', true);
      desktop.noticeStillRunning();
    }
  });

  // Quit stops the server gracefully (in-flight requests finish, stores flush, the data
  // folder's lock is released) before the app ends.
  app.on('before-quit', (event) => {
    desktop.quitting = true;
    if (quitState === 'stopped') return;
    event.preventDefault();
    if (quitState === 'stopping') return;
    quitState = 'stopping';
    log.write('quitting: stopping the server');
    void host.stop().catch((err: unknown) => log.write(`stop failed: ${String(err)}`)).finally(() => {
      quitState = 'stopped';
      log.write('server stopped; bye');
      desktop.tray?.destroy();
      app.quit();
    });
  });
}
