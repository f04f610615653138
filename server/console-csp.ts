// The console's Content-Security-Policy, one source for both hosts of the console: the server
// (sent with its index.html) and the desktop shell (set on every response of the window's origin).
// Only the console's own origin: no inline or eval'd script, no plugins, framed only by itself.
// Inline styles stay allowed (React, CodeMirror and Swagger UI set them); data: and blob: images,
// fonts, media and workers are the console's own.

/** The policy. `origin` (the desktop shell knows it) adds its WebSocket form to connect-src for
 *  the realtime socket; a browser already counts a same-origin socket as 'self'. */
export function consoleCsp(origin?: string): string {
  const socket = origin ? ` ${origin.replace(/^http/, 'ws')}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${socket}`,
    "media-src 'self' blob:",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'self'",
    "form-action 'self'",
  ].join('; ');
}
