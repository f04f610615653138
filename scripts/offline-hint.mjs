// What `npm run desktop` and `npm run dist` say when a download they need fails: one line of the
// error and what to do, instead of the downloader's stack trace. Both fetch from the network the
// first time (Electron's binary; electron-builder's Electron zip and packaging tools), and the
// same console runs without any download in a browser (`npm start`).

const NETWORK = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|getaddrinfo|socket hang up|RequestError|net::ERR_|dial tcp|no such host|certificate)\b/i;

/** True when a tool's output says it failed to reach the network. */
export function isNetworkFailure(output) { return NETWORK.test(output); }

/** The first line of the error (no stack frames, no `stackTrace=` tail). */
export function errorLine(output) {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l && !/^at\s/.test(l));
  const line = lines.find((l) => NETWORK.test(l)) ?? lines.find((l) => /error|⨯/i.test(l)) ?? lines[0] ?? '';
  return line.replace(/^⨯\s*/, '').replace(/\s+failedTask=.*$/, '').replace(/\s+stackTrace=.*$/, '');
}

/** The message for a download that failed: what failed, then what to do. */
export function offlineHint(what, output) {
  return [
    '',
    `${what} needs the network the first time, and the download failed: ${errorLine(output)}`,
    '- With network (or a mirror: ELECTRON_MIRROR, ELECTRON_BUILDER_BINARIES_MIRROR), run it again.',
    '- Without network, the same console runs in a browser: `npm start`, then open the console link it prints',
    '  (http://127.0.0.1:4700/#token=...). See docs/desktop.md.',
    '',
  ].join('\n');
}
