// The desktop app's state and actions: which data folder the server runs on, starting it (with
// a dialog that says what to do when it cannot), restarting it, and what the menus do. main.ts
// wires it to the app's lifecycle.
import { BrowserWindow, Menu, Notification, Tray, clipboard, dialog, shell, type MessageBoxOptions } from 'electron';
import { failureDialog, type FailureAction } from './failures.js';
import { appMenuTemplate, trayMenuTemplate, type MenuActions, type MenuState } from './menu.js';
import { ServerStartError, type ServerHost } from './server-host.js';
import type { ServerFailure, ServerReady } from './server-protocol.js';
import type { Settings } from './settings.js';
import type { Log } from './logs.js';
import { createConsoleWindow, showConsole } from './window.js';
import { freeBytes, watchDiskSpace, type FreeBytes } from './disk-space.js';

export interface DesktopPaths {
  defaultDataDir: string;
  logsDir: string;
  preload: string;
  icon: string;
  trayIcon: string;
  /** The port wanted (4700); a free one is taken when it is in use. */
  port: number;
}

export class Desktop {
  win: BrowserWindow | undefined;
  tray: Tray | undefined;
  quitting = false;
  private stopDiskWatch: (() => void) | undefined;

  constructor(readonly paths: DesktopPaths, readonly settings: Settings, readonly log: Log, readonly host: ServerHost,
    private readonly quitApp: () => void, private readonly diskFree: FreeBytes = freeBytes) {
    host.on('crashed', (failure) => void this.onCrash(failure));
  }

  get info(): ServerReady | undefined { return this.host.info; }
  dataDir(): string { return this.settings.get('dataDir') ?? this.paths.defaultDataDir; }

  /** Starts the server on `dataDir`; on failure asks the user what to do until it runs or the
   *  user quits (false). The folder it runs on becomes the saved choice. */
  async startServer(dataDir = this.dataDir()): Promise<boolean> {
    for (;;) {
      try {
        const info = await this.host.start({ data: dataDir, port: this.paths.port });
        this.settings.set('dataDir', dataDir === this.paths.defaultDataDir ? undefined : dataDir);
        this.log.write(`server ready at ${info.consoleUrl}, data folder ${dataDir}`);
        this.afterStart(info);
        return true;
      } catch (err) {
        if (!(err instanceof ServerStartError)) throw err;
        this.log.write(`server failed to start (${err.failure.kind}): ${err.failure.message}`);
        this.refreshMenus();
        const next = await this.resolveFailure(err.failure, dataDir);
        if (next === undefined) return false;
        dataDir = next;
      }
    }
  }

  /** Shows a failure; returns the folder to try next, or undefined to quit. */
  private async resolveFailure(failure: ServerFailure, dataDir: string): Promise<string | undefined> {
    for (;;) {
      const action = await this.ask(failure);
      if (action === 'quit') return undefined;
      if (action === 'retry') return dataDir;
      if (action === 'default-folder') return this.paths.defaultDataDir;
      if (action === 'open-logs') { await shell.openPath(this.paths.logsDir); continue; }
      const chosen = await this.pickFolder();
      if (chosen) return chosen;
    }
  }

  private async ask(failure: ServerFailure): Promise<FailureAction> {
    const d = failureDialog(failure, this.paths.defaultDataDir);
    const { response } = await this.messageBox({ type: 'error', title: d.title, message: d.message, detail: d.detail,
      buttons: d.buttons.map((b) => b.label), defaultId: 0, cancelId: d.buttons.length - 1, noLink: true });
    return d.buttons[response]?.action ?? 'quit';
  }

  private messageBox(options: MessageBoxOptions) {
    return this.win && !this.win.isDestroyed() ? dialog.showMessageBox(this.win, options) : dialog.showMessageBox(options);
  }

  private async pickFolder(): Promise<string | undefined> {
    const options = { title: 'Choose the Homebase data folder', defaultPath: this.dataDir(), buttonLabel: 'Use This Folder',
      properties: ['openDirectory', 'createDirectory'] as ('openDirectory' | 'createDirectory')[] };
    const r = this.win && !this.win.isDestroyed() ? await dialog.showOpenDialog(this.win, options) : await dialog.showOpenDialog(options);
    return r.canceled ? undefined : r.filePaths[0];
  }

  private afterStart(info: ServerReady): void {
    this.refreshMenus();
    this.stopDiskWatch?.();
    this.stopDiskWatch = watchDiskSpace(info.dataDir, (free) => this.warnLowDisk(info.dataDir, free), { free: this.diskFree });
    if (this.win && !this.win.isDestroyed()) void showConsole(this.win, info.consoleUrl).catch((e) => this.log.write(`console did not load: ${e}`));
    if (info.preferredPortTaken) {
      void this.messageBox({ type: 'info', title: 'Another port', message: `Port ${this.paths.port} is in use, so Homebase listens on ${info.consoleUrl} this time.`,
        detail: `Point your app or tests at ${info.url}, or stop the program holding port ${this.paths.port} and restart the server (Server menu).`,
        buttons: ['OK', 'Copy API URL'] }).then(({ response }) => { if (response === 1) clipboard.writeText(info.url); });
    }
    if (info.generatedAdmin) {
      const { workspace, email, password } = info.generatedAdmin;
      void this.messageBox({ type: 'info', title: 'Workspace created', message: `Workspace '${workspace}' was created with an admin user.`,
        detail: `Email: ${email}\nPassword: ${password}\n\nThis password is shown once; change it in the console if you like.`,
        buttons: ['OK', 'Copy Password'] }).then(({ response }) => { if (response === 1) clipboard.writeText(password); });
    }
  }

  private warnLowDisk(dataDir: string, free: number): void {
    this.log.write(`low disk space: ${Math.round(free / 1024 / 1024)} MB left for ${dataDir}`);
    void this.messageBox({ type: 'warning', title: 'Disk almost full', message: 'The disk holding the data folder is almost full.',
      detail: `Only ${Math.round(free / 1024 / 1024)} MB are left for ${dataDir}. Once it is full, Homebase refuses writes (nothing it acknowledged is lost). `
        + 'Free some space, or move to a data folder on another disk (Server → Change the Data Folder…).',
      buttons: ['OK', 'Open the Data Folder'] }).then(({ response }) => { if (response === 1) void shell.openPath(dataDir); });
  }

  openWindow(): BrowserWindow {
    if (this.win && !this.win.isDestroyed()) {
      if (this.win.isMinimized()) this.win.restore();
      this.win.show();
      this.win.focus();
      return this.win;
    }
    const win = createConsoleWindow({ preload: this.paths.preload, icon: this.paths.icon, settings: this.settings, consoleUrl: () => this.info?.consoleUrl });
    this.win = win;
    win.on('closed', () => { if (this.win === win) this.win = undefined; });
    if (this.info) void showConsole(win, this.info.consoleUrl).catch((e) => this.log.write(`console did not load: ${e}`));
    return win;
  }

  async restart(dataDir = this.dataDir()): Promise<void> {
    this.stopDiskWatch?.();
    await this.host.stop();
    this.refreshMenus();
    if (!(await this.startServer(dataDir))) this.quitApp();
  }

  private async onCrash(failure: ServerFailure): Promise<void> {
    this.log.write(`server crashed: ${failure.message}`);
    this.refreshMenus();
    if (this.quitting) return;
    const next = await this.resolveFailure(failure, this.dataDir());
    if (next === undefined) this.quitApp();
    else if (!(await this.startServer(next))) this.quitApp();
  }

  menuState(): MenuState {
    return { apiUrl: this.info?.url, dataDir: this.info?.dataDir ?? this.dataDir(), usingDefaultFolder: this.dataDir() === this.paths.defaultDataDir };
  }

  refreshMenus(): void {
    Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(this.menuState(), this.actions, process.platform)));
    this.tray?.setContextMenu(Menu.buildFromTemplate(trayMenuTemplate(this.menuState(), this.actions)));
    this.tray?.setToolTip(this.info ? `Homebase: ${this.info.url}` : 'Homebase (server not running)');
  }

  /** The tray icon, where the system has one; false when it could not be made. */
  createTray(): boolean {
    try {
      this.tray = new Tray(this.paths.trayIcon);
      this.tray.on('click', () => this.openWindow());
      this.refreshMenus();
      return true;
    } catch (err) {
      this.log.write(`no tray icon: ${(err as Error).message}`);
      return false;
    }
  }

  /** Told once, when the last window closes: the server keeps running. */
  noticeStillRunning(): void {
    const where = process.platform === 'darwin' ? 'the Dock' : 'its tray icon';
    const body = `The server keeps serving ${this.info?.url ?? ''}. Open the console again or quit from ${where}.`;
    if (Notification.isSupported()) new Notification({ title: 'Homebase is still running', body }).show();
    else void dialog.showMessageBox({ type: 'info', title: 'Homebase', message: 'Homebase is still running', detail: body });
  }

  /** The workspace whose API reference to show: the one open in the window, else the first. */
  private currentWorkspace(): string | undefined {
    const url = this.win && !this.win.isDestroyed() ? this.win.webContents.getURL() : '';
    return /\/app\/([A-Za-z][A-Za-z0-9_-]{0,63})(?:[/?#]|$)/.exec(url)?.[1] ?? this.info?.workspaces[0];
  }

  readonly actions: MenuActions = {
    copyApiUrl: () => { if (this.info) clipboard.writeText(this.info.url); },
    // The browser gets the token in the fragment, which never reaches the server or its request log.
    openConsoleInBrowser: () => { if (this.info) void shell.openExternal(`${this.info.consoleUrl}/#token=${encodeURIComponent(this.info.consoleToken)}`); },
    openDataFolder: () => { void shell.openPath(this.info?.dataDir ?? this.dataDir()); },
    changeDataFolder: () => void this.pickFolder().then((dir) => (dir && dir !== this.dataDir() ? this.restart(dir) : undefined)),
    useDefaultDataFolder: () => void this.restart(this.paths.defaultDataDir),
    restartServer: () => void this.restart(),
    openApiReference: () => {
      if (!this.info) return;
      const ws = this.currentWorkspace();
      void showConsole(this.openWindow(), this.info.consoleUrl, ws ? `/app/${ws}/api/` : '/');
    },
    openLogsFolder: () => { void shell.openPath(this.paths.logsDir); },
    showWindow: () => { this.openWindow(); },
    quit: () => this.quitApp(),
  };
}
