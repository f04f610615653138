// A stand-in for the `electron` module, so that the shell's main-process modules and its preload
// run under Vitest without Electron's binary (tests: vi.mock('electron', () => import(this))).
// It records what the code asks of Electron (window options, handlers, dialogs, menus, opened
// URLs) in `stub`, and lets a test answer dialogs. utilityProcess.fork runs the real entry in a
// Node child process (through tsx), so the server behind the shell is the real one.
import { EventEmitter } from 'node:events';
import { fork as nodeFork } from 'node:child_process';
import type { MenuItemConstructorOptions } from 'electron';

type Listener = (...args: any[]) => unknown;

export interface MessageBoxCall { window?: unknown; options: { type?: string; title?: string; message: string; detail?: string; buttons?: string[] } }

export const stub = {
  paths: {} as Record<string, string>,
  singleInstance: true,
  quitCalls: 0,
  exitCode: undefined as number | undefined,
  windows: [] as FakeBrowserWindow[],
  appMenu: undefined as { template: MenuItemConstructorOptions[] } | undefined,
  trays: [] as FakeTray[],
  trayThrows: false,
  messageBoxes: [] as MessageBoxCall[],
  /** Answers to the next message boxes (button indexes); a box with none left answers 0 (or waits, see holdMessageBoxes). */
  messageBoxAnswers: [] as number[],
  openDialogAnswers: [] as (string | undefined)[],
  openDialogs: [] as unknown[],
  externalUrls: [] as string[],
  openedPaths: [] as string[],
  clipboard: '',
  notifications: [] as { title: string; body: string }[],
  ipcHandlers: new Map<string, Listener>(),
  headersReceived: undefined as Listener | undefined,
  permissionRequest: undefined as Listener | undefined,
  permissionCheck: undefined as Listener | undefined,
  forks: [] as { entry: string; args: string[]; options: unknown; child: import('node:child_process').ChildProcess }[],
  exposed: {} as Record<string, unknown>,
  invokes: [] as { channel: string; args: unknown[] }[],
  invokeResult: undefined as unknown,
};

export function resetStub(): void {
  Object.assign(stub, {
    paths: {}, singleInstance: true, quitCalls: 0, exitCode: undefined, windows: [], appMenu: undefined, trays: [], trayThrows: false,
    messageBoxes: [], messageBoxAnswers: [], openDialogAnswers: [], openDialogs: [], externalUrls: [], openedPaths: [], clipboard: '',
    notifications: [], ipcHandlers: new Map(), headersReceived: undefined, permissionRequest: undefined, permissionCheck: undefined,
    forks: [], exposed: {}, invokes: [], invokeResult: undefined,
  });
  app.removeAllListeners();
  readyResolve = undefined;
  readyPromise = undefined;
  ready = false;
}

// ---- app ----
let ready = false;
let readyResolve: (() => void) | undefined;
let readyPromise: Promise<void> | undefined;
let name = 'Electron';

class FakeApp extends EventEmitter {
  setName(n: string) { name = n; }
  getName() { return name; }
  getVersion() { return '0.1.0'; }
  getPath(key: string) {
    const p = stub.paths[key];
    if (!p) throw new Error(`stub: no path '${key}' set`);
    return p;
  }
  setPath(key: string, value: string) { stub.paths[key] = value; }
  setAppLogsPath(p?: string) { stub.paths.logs = p ?? `${stub.paths.userData}/logs`; }
  requestSingleInstanceLock() { return stub.singleInstance; }
  isReady() { return ready; }
  whenReady() {
    readyPromise ??= new Promise<void>((resolve) => { readyResolve = resolve; });
    return readyPromise;
  }
  /** Test helper: the app becomes ready. */
  becomeReady() { ready = true; this.whenReady(); readyResolve?.(); this.emit('ready'); }
  quit() {
    stub.quitCalls++;
    let prevented = false;
    this.emit('before-quit', { preventDefault: () => { prevented = true; } });
    if (prevented) return;
    for (const w of [...stub.windows]) if (!w.isDestroyed()) w.destroy();
    this.emit('will-quit', { preventDefault() {} });
    this.emit('quit');
  }
  exit(code = 0) { stub.exitCode = code; }
}
export const app = new FakeApp();

// ---- windows ----
export class FakeWebContents extends EventEmitter {
  url = '';
  windowOpenHandler: Listener | undefined;
  setWindowOpenHandler(h: Listener) { this.windowOpenHandler = h; }
  getURL() { return this.url; }
  /** Test helper: fires a navigation event, returns whether it was prevented. */
  navigate(event: 'will-navigate' | 'will-redirect' | 'will-attach-webview', url: string) {
    let prevented = false;
    this.emit(event, { url, preventDefault: () => { prevented = true; } });
    return prevented;
  }
}

export class FakeBrowserWindow extends EventEmitter {
  webContents = new FakeWebContents();
  title = '';
  visible = false;
  focused = false;
  destroyed = false;
  maximized = false;
  minimized = false;
  bounds: { x: number; y: number; width: number; height: number };
  loads: string[] = [];
  constructor(readonly options: any) {
    super();
    this.bounds = { x: options.x ?? 100, y: options.y ?? 100, width: options.width ?? 800, height: options.height ?? 600 };
    stub.windows.push(this);
    app.emit('web-contents-created', {}, this.webContents);
  }
  async loadURL(url: string) { this.loads.push(url); this.webContents.url = url; this.emit('ready-to-show'); }
  show() { this.visible = true; }
  focus() { this.focused = true; }
  restore() { this.minimized = false; }
  isMinimized() { return this.minimized; }
  isFullScreen() { return false; }
  isMaximized() { return this.maximized; }
  maximize() { this.maximized = true; this.emit('maximize'); }
  isDestroyed() { return this.destroyed; }
  setTitle(t: string) { this.title = t; }
  getTitle() { return this.title; }
  getNormalBounds() { return { ...this.bounds }; }
  setBounds(b: Partial<FakeBrowserWindow['bounds']>) { this.bounds = { ...this.bounds, ...b }; this.emit('resize'); }
  close() {
    if (this.destroyed) return;
    let prevented = false;
    this.emit('close', { preventDefault: () => { prevented = true; } });
    if (!prevented) this.destroy();
  }
  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('closed');
    if (stub.windows.every((w) => w.destroyed)) app.emit('window-all-closed');
  }
}
export const BrowserWindow = FakeBrowserWindow;

export const screen = { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] };

// ---- menus, tray, dialogs, shell ----
export const Menu = {
  buildFromTemplate: (template: MenuItemConstructorOptions[]) => ({ template }),
  setApplicationMenu: (menu: { template: MenuItemConstructorOptions[] } | null) => { stub.appMenu = menu ?? undefined; },
};

export class FakeTray extends EventEmitter {
  menu: { template: MenuItemConstructorOptions[] } | undefined;
  tooltip = '';
  destroyed = false;
  constructor(readonly icon: string) {
    super();
    if (stub.trayThrows) throw new Error('stub: no tray on this desktop');
    stub.trays.push(this);
  }
  setContextMenu(m: { template: MenuItemConstructorOptions[] }) { this.menu = m; }
  setToolTip(t: string) { this.tooltip = t; }
  destroy() { this.destroyed = true; }
}
export const Tray = FakeTray;

export const dialog = {
  async showMessageBox(a: unknown, b?: MessageBoxCall['options']) {
    const options = (b ?? a) as MessageBoxCall['options'];
    stub.messageBoxes.push({ window: b ? a : undefined, options });
    return { response: stub.messageBoxAnswers.shift() ?? 0, checkboxChecked: false };
  },
  async showOpenDialog(a: unknown, b?: unknown) {
    stub.openDialogs.push(b ?? a);
    const answer = stub.openDialogAnswers.shift();
    return { canceled: answer === undefined, filePaths: answer ? [answer] : [] };
  },
};

export const shell = {
  async openExternal(url: string) { stub.externalUrls.push(url); },
  async openPath(p: string) { stub.openedPaths.push(p); return ''; },
};

export const clipboard = { writeText: (t: string) => { stub.clipboard = t; }, readText: () => stub.clipboard };

export class Notification {
  static isSupported() { return true; }
  constructor(private readonly o: { title: string; body: string }) {}
  show() { stub.notifications.push(this.o); }
}

// ---- IPC, session ----
export const ipcMain = {
  handle: (channel: string, fn: Listener) => {
    if (stub.ipcHandlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    stub.ipcHandlers.set(channel, fn);
  },
  removeHandler: (channel: string) => { stub.ipcHandlers.delete(channel); },
};

/** Test helper: what ipcRenderer.invoke would get back (handlers' throws become rejections). */
export async function invoke(channel: string, event: unknown, ...args: unknown[]) {
  const handler = stub.ipcHandlers.get(channel);
  if (!handler) throw new Error(`No handler registered for '${channel}'`);
  return handler(event, ...args);
}

export const session = {
  defaultSession: {
    webRequest: { onHeadersReceived: (fn: Listener) => { stub.headersReceived = fn; } },
    setPermissionRequestHandler: (fn: Listener) => { stub.permissionRequest = fn; },
    setPermissionCheckHandler: (fn: Listener) => { stub.permissionCheck = fn; },
  },
};

// ---- utility process: the real entry in a Node child ----
export const utilityProcess = {
  fork(entry: string, args: string[], options: { env?: NodeJS.ProcessEnv } = {}) {
    const child = nodeFork(entry, args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: options.env ?? process.env });
    stub.forks.push({ entry, args, options, child });
    const emitter = new EventEmitter();
    child.on('message', (m) => emitter.emit('message', m));
    child.on('exit', (code, signal) => emitter.emit('exit', code ?? (signal ? 1 : 0)));
    return Object.assign(emitter, {
      pid: child.pid,
      stdout: child.stdout,
      stderr: child.stderr,
      postMessage: (m: unknown) => { if (child.connected) child.send(m as object); },
      kill: () => child.kill('SIGKILL'),
    });
  },
};

// ---- preload side ----
export const contextBridge = {
  exposeInMainWorld: (key: string, api: unknown) => { stub.exposed[key] = api; },
};
export const ipcRenderer = {
  invoke: (channel: string, ...args: unknown[]) => { stub.invokes.push({ channel, args }); return Promise.resolve(stub.invokeResult); },
};
