// The console window's preload (sandboxed; bundled into dist/electron/preload.cjs). It exposes
// exactly `window.homebase.getConsoleToken()`, an async function returning the console token
// (the desktop hands the token over here, never in the URL). Nothing else of
// Electron or Node reaches the page.
import { contextBridge, ipcRenderer } from 'electron';
import { INVOKE_CHANNELS } from './channels.js';

export interface HomebaseDesktopApi {
  getConsoleToken(): Promise<string>;
}

const api: HomebaseDesktopApi = {
  getConsoleToken: () => ipcRenderer.invoke(INVOKE_CHANNELS.getConsoleToken) as Promise<string>,
};

contextBridge.exposeInMainWorld('homebase', api);
