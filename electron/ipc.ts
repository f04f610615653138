// The main process's IPC handlers: exactly the allow-listed channels, each answering only the
// console's own window, top frame, on the running server's origin (a page that got into the
// window some other way, or a frame inside it, gets an error instead of the token).
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { ALLOWED_INVOKE_CHANNELS, INVOKE_CHANNELS, type InvokeChannel } from './channels.js';
import { originOf } from './security.js';

export interface IpcContext {
  /** The console window's web contents, when the window is open. */
  consoleContents(): WebContents | undefined;
  /** The running server's origin (`http://127.0.0.1:PORT`). */
  consoleOrigin(): string | undefined;
  consoleToken(): string | undefined;
}

export function isTrustedSender(event: IpcMainInvokeEvent, ctx: IpcContext): boolean {
  const frame = event.senderFrame;
  const origin = ctx.consoleOrigin();
  if (!frame || !origin || event.sender !== ctx.consoleContents()) return false;
  if (frame.parent) return false; // top frame only
  return originOf(frame.url) === origin;
}

export function ipcHandlers(ctx: IpcContext): Record<InvokeChannel, () => unknown> {
  return {
    [INVOKE_CHANNELS.getConsoleToken]: () => {
      const token = ctx.consoleToken();
      if (!token) throw new Error('The server is not running');
      return token;
    },
  };
}

/** Registers one handler per allowed channel; returns a function that removes them. */
export function registerIpc(ipcMain: IpcMain, ctx: IpcContext, log: (line: string) => void): () => void {
  const handlers = ipcHandlers(ctx);
  for (const channel of ALLOWED_INVOKE_CHANNELS) {
    const handler = handlers[channel];
    ipcMain.handle(channel, (event) => {
      if (!isTrustedSender(event, ctx)) {
        log(`refused IPC ${channel} from ${event.senderFrame?.url ?? 'an unknown frame'}`);
        throw new Error('Refused: not the Homebase console');
      }
      return handler();
    });
  }
  return () => { for (const channel of ALLOWED_INVOKE_CHANNELS) ipcMain.removeHandler(channel); };
}
