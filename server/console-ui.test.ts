import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { CONSOLE_CSP, mountConsole } from './console-ui.js';

describe('console UI serving', () => {
  let dir: string;
  let server: Server;
  let base: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hb-console-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(dir, 'assets', 'app-123.js'), 'console.log(1)');
    const app = express();
    app.use('/api', (_req, res) => { res.status(404).json({ error: { code: 'NOT_FOUND' } }); });
    mountConsole(app, dir);
    app.use((_req, res) => { res.status(404).json({ error: { code: 'NOT_FOUND' } }); });
    await new Promise<void>((resolve) => { server = app.listen(0, '127.0.0.1', () => resolve()); });
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => { server.close(); rmSync(dir, { recursive: true, force: true }); });

  it.each(['/', '/app/demo', '/app/demo/database/people', '/app/demo/api/', '/app/demo/chats/abc'])('serves index.html for the console route %s', async (path) => {
    const res = await fetch(base + path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.text()).toContain('<title>console</title>');
  });

  it.each(['/api/anything', '/api', '/assets/missing.js', '/favicon.ico'])('never shadows %s with the console', async (path) => {
    const res = await fetch(base + path);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/json/);
  });

  it('serves hashed assets cached for good', async () => {
    const res = await fetch(`${base}/assets/app-123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/immutable/);
    expect(await res.text()).toBe('console.log(1)');
  });

  it('says how to build when there is no build', async () => {
    const app = express();
    mountConsole(app, undefined);
    const s = await new Promise<Server>((resolve) => { const x = app.listen(0, '127.0.0.1', () => resolve(x)); });
    const res = await fetch(`http://127.0.0.1:${(s.address() as { port: number }).port}/`);
    expect(await res.text()).toContain('npm run build');
    s.close();
  });
});
