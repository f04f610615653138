// Console benchmark in Chromium (Debian's /usr/bin/chromium through Playwright): a workspace with
// a 100,000-record collection, then
//  - time to the first records page: from navigating to /app/demo/database/people until the
//    grid shows its rows (median of several cold navigations, each in a fresh page);
//  - paging: time from "Next" to the next page's rows, and the longest main-thread task seen
//    while paging and scrolling (a freeze would show here);
//  - the gzip size of the JavaScript the records page loads (the API reference's Swagger UI and
//    the lazily loaded JSON editor are not part of it).
// Run alone: `npx tsx bench/console.ts [--records 100000] [--runs 5]`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { generatePeople } from './lib/data.js';

export interface ConsoleBenchOptions { records?: number; runs?: number; chromium?: string; log?: (line: string) => void }
export interface ConsoleBenchResult {
  records: number;
  firstPageMs: { median: number; min: number; max: number; runs: number[] };
  nextPageMs: { median: number; max: number };
  longestTaskMs: number;
  recordsPageJs: { files: number; bytes: number; gzipBytes: number };
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Init scripts as text: tsx's transform adds helpers to functions that do not exist in the page.
const shellHook = (token: string) => `window.homebase = { getConsoleToken: async () => ${JSON.stringify(token)} };`;
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };

async function start(): Promise<{ child: ChildProcess; consoleUrl: string; token: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli.ts', 'serve', '--port', '0', '--in-memory', '--json', '--admin-password', 'bench-password-1'], {
    cwd: ROOT, env: { ...process.env, HOMEBASE_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<{ consoleUrl: string; consoleToken: string }>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => { out += d; const nl = out.indexOf('\n'); if (nl >= 0) resolve(JSON.parse(out.slice(0, nl))); });
    child.on('exit', (code) => reject(new Error(`server exited (${code})`)));
  });
  return { child, consoleUrl: line.consoleUrl, token: line.consoleToken };
}

export async function benchConsole(options: ConsoleBenchOptions = {}): Promise<ConsoleBenchResult> {
  const records = options.records ?? 100_000;
  const runs = options.runs ?? 5;
  const log = options.log ?? ((s: string) => process.stderr.write(`${s}\n`));
  const executablePath = options.chromium ?? process.env.HOMEBASE_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath} (apt-get install chromium)`);
  const built = spawnSync(process.execPath, ['scripts/ensure-console.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('console build failed');

  const { chromium } = await import('@playwright/test');
  const srv = await start();
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  try {
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${srv.consoleUrl}/api${path}`, { method, headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    log(`console bench: importing ${records.toLocaleString()} records`);
    const { token } = await api('POST', '/workspaces/demo/token');
    const ws = (method: string, path: string, body?: unknown) => fetch(`${srv.consoleUrl}/api/app/demo${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await ws('POST', '/database', { _id: 'people', setting: { read: 'private', write: 'private', update: 'private' } });
    for (const [id, type] of [['name', 'string'], ['email', 'email'], ['role', 'string'], ['age', 'integer'], ['city', 'string'], ['active', 'boolean'], ['score', 'number']]) {
      await ws('POST', '/database/people/fields', { _id: id, type });
    }
    const dump = await api('GET', '/workspaces/demo/export');
    dump.records = { ...(dump.records ?? {}), people: generatePeople(records) };
    await api('POST', '/workspaces/demo/import', dump);

    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const signIn = await context.newPage();
    await signIn.goto(`${srv.consoleUrl}/#token=${srv.token}`);
    await signIn.getByRole('heading', { name: 'Workspaces' }).waitFor();
    await signIn.close();

    // The JS of the records page, from a cold cache.
    const scripts = new Map<string, Buffer>();
    const times: number[] = [];
    for (let i = 0; i < runs + 1; i++) {
      const page = await context.newPage();
      if (i === 0) page.on('response', async (r) => { if (r.request().resourceType() === 'script') scripts.set(r.url(), await r.body()); });
      // Session storage is per page: hand the token over as the desktop shell would.
      await page.addInitScript(shellHook(srv.token));
      const t0 = performance.now();
      await page.goto(`${srv.consoleUrl}/app/demo/database/people`);
      await page.locator('.grid-row').first().waitFor().catch(async (e) => {
        await page.screenshot({ path: '/tmp/console-bench-failure.png' });
        throw e;
      });
      const ms = performance.now() - t0;
      if (i > 0) times.push(ms); // the first navigation warms the server's and the browser's caches
      await page.close();
    }

    // Paging and scrolling, watching for long tasks.
    const page = await context.newPage();
    await page.addInitScript(`${shellHook(srv.token)}
      window.longest = 0;
      new PerformanceObserver((list) => { for (const e of list.getEntries()) window.longest = Math.max(window.longest, e.duration); }).observe({ type: 'longtask', buffered: true });`);
    await page.goto(`${srv.consoleUrl}/app/demo/database/people?limit=100`);
    await page.locator('.grid-row').first().waitFor();
    await page.evaluate(() => { (window as unknown as { longest: number }).longest = 0; });
    const next: number[] = [];
    for (let i = 0; i < 5; i++) {
      const before = await page.locator('.grid-row').first().getAttribute('data-record-id');
      const t0 = performance.now();
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.waitForFunction((b) => document.querySelector('.grid-row')?.getAttribute('data-record-id') !== b, before);
      next.push(performance.now() - t0);
      await page.locator('.grid').evaluate((el) => { el.scrollTop = el.scrollHeight; });
      await page.waitForTimeout(50);
      await page.locator('.grid').evaluate((el) => { el.scrollTop = 0; });
    }
    await page.getByRole('button', { name: 'Last page' }).click();
    await page.waitForFunction(() => document.querySelector('[aria-live="polite"]')?.textContent?.includes('100,000 of 100,000') || document.querySelector('[aria-live="polite"]')?.textContent?.includes(' of '));
    const longest = await page.evaluate(() => (window as unknown as { longest: number }).longest);

    const js = [...scripts.values()];
    return {
      records,
      firstPageMs: { median: median(times), min: Math.min(...times), max: Math.max(...times), runs: times.map((t) => Math.round(t)) },
      nextPageMs: { median: median(next), max: Math.max(...next) },
      longestTaskMs: Math.round(longest),
      recordsPageJs: { files: js.length, bytes: js.reduce((n, b) => n + b.length, 0), gzipBytes: js.reduce((n, b) => n + gzipSync(b).length, 0) },
    };
  } finally {
    await browser.close();
    srv.child.kill('SIGTERM');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? Number(process.argv[i + 1]) : undefined; };
  benchConsole({ records: arg('records'), runs: arg('runs') }).then((r) => { console.log(JSON.stringify(r, null, 2)); }, (e) => { console.error(e); process.exit(1); });
}
