// The window's security, after Electron's checklist: a CSP on the console's responses,
// navigation kept on the console's origin, no new windows (http(s) links open in the user's
// browser), permission requests denied, no <webview>.
import type { Session, WebContents } from 'electron';
import { consoleCsp } from '../server/console-csp.js';

/** The console's CSP, the server's own policy (server/console-csp.ts) with the window's origin. */
export { consoleCsp };

export function originOf(url: string): string | undefined {
  try { return new URL(url).origin; } catch { return undefined; }
}

/** Only http(s) links ever leave for the user's browser (no file:, smb:, custom schemes). */
export function isExternalWebUrl(url: string): boolean {
  try { const u = new URL(url); return u.protocol === 'http:' || u.protocol === 'https:'; } catch { return false; }
}

/** Permissions the console may have: writing plain text to the clipboard (its Copy buttons),
 *  from its own origin only. Everything else (camera, location, notifications, clipboard
 *  reading, ...) is denied. */
export function permissionAllowed(permission: string, requestingUrl: string | undefined, origin: string | undefined): boolean {
  return permission === 'clipboard-sanitized-write' && !!origin && !!requestingUrl && originOf(requestingUrl) === origin;
}

/** CSP and permission handlers on the session the window uses. */
export function secureSession(ses: Session, consoleOrigin: () => string | undefined): void {
  ses.webRequest.onHeadersReceived((details, callback) => {
    const origin = consoleOrigin();
    if (!origin || originOf(details.url) !== origin) return callback({ responseHeaders: details.responseHeaders });
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [consoleCsp(origin)] } });
  });
  ses.setPermissionRequestHandler((_wc, permission, callback, details) => {
    callback(permissionAllowed(permission, details?.requestingUrl, consoleOrigin()));
  });
  ses.setPermissionCheckHandler((_wc, permission, requestingOrigin) =>
    permissionAllowed(permission, requestingOrigin, consoleOrigin()));
}

/** Navigation, redirects and new windows of any web contents the app creates. */
export function guardWebContents(contents: WebContents, consoleOrigin: () => string | undefined, openExternal: (url: string) => void): void {
  const keepOnConsole = (event: { preventDefault(): void }, url: string) => {
    if (originOf(url) === consoleOrigin()) return;
    event.preventDefault();
    if (isExternalWebUrl(url)) openExternal(url);
  };
  contents.on('will-navigate', (event) => keepOnConsole(event, event.url));
  contents.on('will-redirect', (event) => keepOnConsole(event, event.url));
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isExternalWebUrl(url)) openExternal(url);
    return { action: 'deny' };
  });
}
