// The test-suite figures (`npm run bench`, docs/performance.md): how long a start takes, what a
// fork of a 10,000-record workspace costs, and a suite of 200 tests that each take a fork, send
// 10 requests and drop it. `node -e 0` is measured in the same run as the floor of any spawn.
// Run alone: `npx tsx bench/testing.ts` (prints the figures as JSON).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '..');
const BUNDLE_CLI = join(ROOT, 'dist', 'server', 'bundle', 'cli.js');
const TSC_CLI = join(ROOT, 'dist', 'server', 'cli.js');
const BUNDLE_API = join(ROOT, 'dist', 'server', 'bundle', 'public-api.js');
const TSC_API = join(ROOT, 'dist', 'server', 'public-api.js');
const ADMIN = { email: 'admin@example.com', password: 'bench-admin-password-1' };

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
const round = (x: number) => Math.round(x * 10) / 10;

export interface TestingBenchResult {
  /** Medians in ms. */
  start: {
    runs: number;
    nodeFloorMs: number;
    cliFirstAnswerMs?: number;
    cliFirstAnswerUnbundledMs?: number;
    importMs?: number;
    importUnbundledMs?: number;
    startServerMs?: number;
  };
  fork: { records: number; runs: number; memoryMs?: number; diskMs?: number; postgresMs?: number; postgresNote?: string };
  suite: { tests: number; requestsPerTest: number; totalMs?: number; perTestMs?: number };
  notes: string[];
}

/** The package's `homebase` bin as npm installs it: bin/homebase.js beside dist/ and no
 *  TypeScript sources, so that it runs the bundle (in this checkout it would run the sources
 *  through tsx). A temporary folder holding a copy of the bin, package.json, and links to this
 *  checkout's dist/ and node_modules/; `remove` deletes it. */
function packagedBin(): { bin: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'homebase-bench-package-'));
  mkdirSync(join(dir, 'bin'));
  for (const file of readdirSync(join(ROOT, 'bin'))) copyFileSync(join(ROOT, 'bin', file), join(dir, 'bin', file));
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(ROOT, 'dist'), join(dir, 'dist'), 'dir');
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { bin: join(dir, 'bin', 'homebase.js'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The bin's code cache (bin/code-cache.js) goes in this folder, removed with the package copy. */
const codeCacheOf = (bin: string) => join(bin, '..', '..', 'code-cache');

/** Spawn → exit of `node -e 0`. */
function nodeFloor(): number {
  const t = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return performance.now() - t;
}

/** Spawn of `homebase serve --port 0 --in-memory --json` → the answer of its first request. */
async function cliFirstAnswer(cli: string): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--host', '127.0.0.1', '--in-memory', '--json', '--quiet', '--admin-password', ADMIN.password],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, VITEST: undefined, NODE_ENV: undefined, HOMEBASE_CODE_CACHE: codeCacheOf(cli) } as NodeJS.ProcessEnv });
  try {
    const url = await new Promise<string>((ok, fail) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const nl = out.indexOf('\n');
        if (nl >= 0) ok((JSON.parse(out.slice(0, nl)) as { url: string }).url);
      });
      child.once('exit', (code) => fail(new Error(`homebase serve exited (${code}) before answering`)));
    });
    const res = await fetch(`${url}/health`);
    await res.text();
    if (res.status !== 200) throw new Error(`health answered ${res.status}`);
    return performance.now() - t0;
  } finally {
    child.kill('SIGKILL');
  }
}

/** In a fresh process: import of the package entry, then startServer() of an empty in-memory server. */
function importAndStart(entry: string): { importMs: number; startMs: number } {
  const code = `const t0=performance.now();const m=await import(${JSON.stringify(pathToFileURL(entry).href)});const t1=performance.now();`
    + `const s=await m.startServer({port:0,inMemory:true,adminPassword:${JSON.stringify(ADMIN.password)}});const t2=performance.now();`
    + 'process.stdout.write(JSON.stringify({importMs:t1-t0,startMs:t2-t1}));await s.close();';
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', env: { ...process.env, VITEST: undefined, NODE_ENV: undefined } });
  if (r.status !== 0) throw new Error(`import and start failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { importMs: number; startMs: number };
}

function seedOf(records: number) {
  return {
    format: 'homebase-dump', version: 1,
    schema: { collections: [{ _id: 'people', setting: { read: 'public', write: 'public', update: 'private' } }] },
    records: { people: Array.from({ length: records }, (_, i) => ({ _id: `p${i}`, name: `Person ${i}`, age: i % 90, email: `p${i}@example.com` })) },
  };
}

type Api = typeof import('../server/public-api.js');

/** Median ms of POST /fork (then its deletion, not timed) on a server over `records` records. */
async function forkMedian(api: Api, options: Record<string, unknown>, records: number, runs: number): Promise<number> {
  const srv = await api.startServer({ port: 0, adminPassword: ADMIN.password, allowInsecureBcryptCost: true, bcryptCost: 4, seed: seedOf(records), ...options });
  try {
    const auth = { authorization: `Bearer ${srv.consoleToken}`, 'content-type': 'application/json' };
    const times: number[] = [];
    for (let i = 0; i < runs + 2; i++) {
      const t = performance.now();
      const res = await fetch(`${srv.url}/workspaces/demo/fork`, { method: 'POST', headers: auth, body: JSON.stringify({ _id: `f${i}` }) });
      const body = await res.json() as { _id: string };
      const ms = performance.now() - t;
      if (res.status !== 201) throw new Error(`fork answered ${res.status}: ${JSON.stringify(body)}`);
      const check = await (await fetch(`${srv.url}/app/${body._id}/database/people?limit=1`)).json() as { meta: { total: number } };
      if (check.meta.total !== records) throw new Error(`the fork holds ${check.meta.total} records, not ${records}`);
      if (i >= 2) times.push(ms); // the first two warm up
      await fetch(`${srv.url}/workspaces/${body._id}`, { method: 'DELETE', headers: auth });
    }
    return median(times);
  } finally {
    await srv.close();
  }
}

/** 200 tests in a row, each: take a fork (the testing helpers), 10 requests, drop it. */
async function suite(tests: number): Promise<number> {
  const testing = await import(pathToFileURL(existsSync(BUNDLE_API) ? join(ROOT, 'dist', 'server', 'bundle', 'testing', 'index.js') : join(ROOT, 'dist', 'server', 'testing', 'index.js')).href) as typeof import('../server/testing/index.js');
  process.env.NODE_ENV = 'test'; // the helpers' fast password hash, as in a test run
  const server = await testing.startTestServer({ seed: seedOf(100) });
  try {
    const t0 = performance.now();
    for (let i = 0; i < tests; i++) {
      const fork = await server.fork();
      const ok = (r: { status: number }, want: number) => { if (r.status !== want) throw new Error(`test ${i}: ${r.status}, not ${want}`); };
      ok(await fork.request('POST', '/auth/login', { token: null, body: { email: testing.TEST_ADMIN.email, password: testing.TEST_ADMIN.password } }), 200);
      ok(await fork.request('GET', '/database/people?limit=10'), 200);
      ok(await fork.request('POST', '/database/people', { body: { _id: 'new', name: 'New' } }), 201);
      ok(await fork.request('GET', '/database/people/new'), 200);
      ok(await fork.request('PATCH', '/database/people/new', { body: { name: 'Changed' } }), 200);
      ok(await fork.request('GET', '/database/people?filter[age]=42'), 200);
      ok(await fork.request('DELETE', '/database/people/p1'), 204);
      ok(await fork.request('GET', '/database/people/p1'), 404);
      ok(await fork.request('GET', '/auth/me'), 200);
      ok(await fork.request('GET', '/database/people?limit=1'), 200);
      await fork.delete();
    }
    return performance.now() - t0;
  } finally {
    await server.close();
  }
}

export async function benchTesting(options: { runs?: number; forkRuns?: number; records?: number; tests?: number; log?: (s: string) => void } = {}): Promise<TestingBenchResult> {
  const runs = options.runs ?? 5;
  const forkRuns = options.forkRuns ?? 15;
  const records = options.records ?? 10_000;
  const tests = options.tests ?? 200;
  const log = options.log ?? (() => undefined);
  const notes: string[] = [];
  if (!existsSync(TSC_CLI)) throw new Error(`${TSC_CLI} is missing: run npm run build`);
  const hasBundle = existsSync(BUNDLE_CLI);
  if (!hasBundle) notes.push('dist/server/bundle/ is missing (npm run build:bundle): only the unbundled start was measured');

  log('testing: starts');
  const floor: number[] = []; const cli: number[] = []; const cliTsc: number[] = [];
  const imp: number[] = []; const impTsc: number[] = []; const start: number[] = [];
  // What a user runs: the package's bin (which loads the bundle).
  const packaged = hasBundle ? packagedBin() : undefined;
  try {
    // The first start after an install compiles the server and leaves its code cache: the
    // figures are of the starts after it.
    if (packaged) await cliFirstAnswer(packaged.bin);
    for (let i = 0; i < runs; i++) {
      floor.push(nodeFloor());
      if (packaged) cli.push(await cliFirstAnswer(packaged.bin));
      cliTsc.push(await cliFirstAnswer(TSC_CLI));
      const b = hasBundle ? importAndStart(BUNDLE_API) : undefined;
      const u = importAndStart(TSC_API);
      if (b) imp.push(b.importMs);
      impTsc.push(u.importMs);
      start.push((b ?? u).startMs);
    }
  } finally {
    packaged?.remove();
  }
  const result: TestingBenchResult = {
    start: {
      runs, nodeFloorMs: round(median(floor)),
      ...(cli.length ? { cliFirstAnswerMs: round(median(cli)) } : {}), cliFirstAnswerUnbundledMs: round(median(cliTsc)),
      ...(imp.length ? { importMs: round(median(imp)) } : {}), importUnbundledMs: round(median(impTsc)),
      startServerMs: round(median(start)),
    },
    fork: { records, runs: forkRuns },
    suite: { tests, requestsPerTest: 10 },
    notes,
  };

  const api = await import(pathToFileURL(hasBundle ? BUNDLE_API : TSC_API).href) as Api;
  log(`testing: fork of ${records} records (memory)`);
  result.fork.memoryMs = round(await forkMedian(api, { inMemory: true }, records, forkRuns));
  log(`testing: fork of ${records} records (disk)`);
  const data = mkdtempSync(join(tmpdir(), 'homebase-bench-fork-'));
  try {
    result.fork.diskMs = round(await forkMedian(api, { data }, records, forkRuns));
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
  log(`testing: fork of ${records} records (PostgreSQL)`);
  try {
    const { startPgCluster } = await import('../server/test/pg-cluster.js');
    const cluster = await startPgCluster();
    const files = mkdtempSync(join(tmpdir(), 'homebase-bench-files-'));
    try {
      result.fork.postgresMs = round(await forkMedian(api, { database: cluster.url, files }, records, Math.min(forkRuns, 7)));
    } finally {
      cluster.stop();
      rmSync(files, { recursive: true, force: true });
    }
  } catch (err) {
    result.fork.postgresNote = `not measured: ${(err as Error).message.split('\n')[0]}`;
  }

  log(`testing: a suite of ${tests} tests, a fork each`);
  const total = await suite(tests);
  result.suite.totalMs = round(total);
  result.suite.perTestMs = round(total / tests);
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = await benchTesting({ log: (s) => process.stderr.write(`[bench] ${s}\n`) });
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
}
