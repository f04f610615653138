// Serves the built console (dist/console, from renderer/ through Vite) at `/`: hashed assets
// cached for good, index.html for every console route (`/app/demo/database`...), never for
// `/api` and never for a missing asset (that stays a 404). Without a build, `/` says how to
// make one. The console loads nothing from another host, and its Content-Security-Policy
// makes sure of it.
import express from 'express';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { consoleCsp } from './console-csp.js';

const here = dirname(fileURLToPath(import.meta.url));

/** dist/console beside the server: `../dist/console` from the sources (server/), `../console`
 *  from the build (dist/server/) as shipped in the npm package and the desktop app. */
export function consoleDistDir(): string | undefined {
  const candidates = [join(here, '../dist/console'), join(here, '../console'), join(here, '../../console')]; // sources, dist/server, dist/server/bundle
  return candidates.find((dir) => existsSync(join(dir, 'index.html')));
}

/** The policy the server sends with the console (console-csp.ts, shared with the desktop shell). */
export const CONSOLE_CSP = consoleCsp();

export function mountConsole(app: express.Express, dist: string | undefined): void {
  if (!dist) {
    app.get('/', (_req, res) => {
      res.type('html').send(`<!doctype html><meta charset="utf-8"><title>Homebase</title>
<h1>Homebase is running</h1><p>API: <code>/api</code> · health: <a href="/api/health">/api/health</a></p>
<p>The console is not built: run <code>npm run build</code> (or start with <code>npm start</code>, which builds it when missing).</p>`);
    });
    return;
  }
  const indexHtml = readFileSync(join(dist, 'index.html'));
  const sendIndex = (_req: express.Request, res: express.Response) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.end(indexHtml);
  };
  app.use('/assets', express.static(join(dist, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: true }));
  // Console routes: a path without a file extension (or ending in /) outside /api and /assets.
  app.get(/^\/(?!api(?:\/|$))(?!assets\/)(?:[^.]*|.*\/)$/, sendIndex);
}
