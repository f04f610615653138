// Snapshot-restore benchmark: how long `POST /workspaces/{id}/snapshots/{name}/restore` takes
// (HTTP round trip, as a test suite sees it) for 1,000 and 10,000 records, in memory, on disk
// and on PostgreSQL (a throwaway cluster with fsync on, when Debian's `postgresql` is installed),
// after a test changed one record and with the whole workspace rewritten; and how long
// `homebase serve --seed` of 10,000 records takes to answer its first request.
// Run: `npx tsx bench/restore.ts [--records 10000] [--runs 15] [--storages memory,disk,postgres]`;
// the main benchmark calls benchRestore().
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startServer } from '../server/index.js';
import { generatePeople } from './lib/data.js';
import { pgBin, startPgCluster, type PgCluster } from '../server/test/pg-cluster.js';

type Storage = 'memory' | 'disk' | 'postgres';

export interface RestoreBenchOptions {
  records?: number; size?: number; runs?: number; sizes?: number[]; verbose?: boolean;
  /** Where to measure; default memory and disk, and postgres when its binaries are installed. */
  storages?: Storage[];
}

/** `changed`: a test changed one record since the restore before (the usual case: only what
 *  changed is written back). `full`: the workspace held other content (another snapshot), so
 *  every store is rewritten whole. */
export interface RestoreFigure { records: number; storage: Storage; mode: 'changed' | 'full'; medianMs: number; minMs: number; maxMs: number; runs: number }

export interface RestoreBenchResult {
  /** Median in-memory full restore of `records` records (what the main benchmark table shows). */
  ms: number;
  figures: RestoreFigure[];
  seedStart: { records: number; medianMs: number; withoutSeedMs: number };
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function dumpOf(n: number) {
  return {
    format: 'homebase-dump', version: 1,
    schema: { collections: [{ _id: 'people', setting: { read: 'public', write: 'public', update: 'private' } }] },
    records: { people: generatePeople(n) },
  };
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

async function measureRestore(n: number, storage: Storage, runs: number, cluster?: PgCluster): Promise<RestoreFigure[]> {
  const dir = storage !== 'memory' ? await mkdtemp(join(tmpdir(), 'homebase-bench-restore-')) : undefined;
  const where = storage === 'postgres'
    ? { database: await cluster!.createDatabase('restore'), files: dir }
    : { inMemory: !dir, data: dir };
  const srv = await startServer({ port: 0, ...where, adminPassword: 'bench-password-1', bcryptCost: 4, allowInsecureBcryptCost: true, seed: dumpOf(n) });
  try {
    const headers = { authorization: `Bearer ${srv.consoleToken}`, 'content-type': 'application/json' };
    const consoleApi = `${srv.url}/workspaces/demo`;
    const token = (await (await fetch(`${consoleApi}/token`, { method: 'POST', headers })).json()).token as string;
    if ((await fetch(`${consoleApi}/snapshots`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench' }) })).status !== 201) throw new Error('snapshot failed');
    const post = (path: string, body?: unknown) => fetch(`${consoleApi}${path}`, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const timed = async (path: string) => {
      const t0 = performance.now();
      const res = await post(path);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path} failed: ${res.status}`);
      return performance.now() - t0;
    };
    const changed: number[] = [];
    for (let i = 0; i < runs + 2; i++) {
      // What a test does between restores: change a record.
      const put = await fetch(`${srv.url}/app/demo/database/people`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${token}` }, body: JSON.stringify({ name: `run ${i}` }) });
      if (put.status !== 201) throw new Error(`write failed: ${put.status}`);
      const ms = await timed('/snapshots/bench/restore');
      if (i >= 2) changed.push(ms); // two warm-up rounds
    }
    await post('/reset', { keepSchema: true });
    if ((await post('/snapshots', { name: 'other' })).status !== 201) throw new Error('snapshot failed');
    const full: number[] = [];
    for (let i = 0; i < runs + 1; i++) {
      await timed('/snapshots/other/restore');
      const ms = await timed('/snapshots/bench/restore');
      if (i >= 1) full.push(ms);
    }
    const total = (await (await fetch(`${srv.url}/app/demo/database/people?limit=0`, { headers: { authorization: `Bearer ${token}` } })).json()).meta.total;
    if (total !== n) throw new Error(`restore left ${total} records, expected ${n}`);
    const fig = (mode: RestoreFigure['mode'], times: number[]): RestoreFigure =>
      ({ records: n, storage, mode, medianMs: round(median(times)), minMs: round(Math.min(...times)), maxMs: round(Math.max(...times)), runs: times.length });
    return [fig('changed', changed), fig('full', full)];
  } finally {
    await srv.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

const round = (x: number) => Math.round(x * 100) / 100;

/** Milliseconds from spawning `homebase serve --json` until its start line (it accepts requests then),
 *  with NODE_ENV=production as the main benchmark's targets run. */
function timeStart(args: string[]): Promise<number> {
  const t0 = performance.now();
  // The build when there is one (the main benchmark builds first), as a user runs it; else the sources.
  const cli = existsSync(join(ROOT, 'dist', 'server', 'bundle', 'cli.js')) ? ['dist/server/bundle/cli.js'] : existsSync(join(ROOT, 'dist', 'server', 'cli.js')) ? ['dist/server/cli.js'] : ['--import', 'tsx', 'server/cli.ts'];
  const child = spawn(process.execPath, [...cli, 'serve', '--json', '--in-memory', '--port', '0', '--admin-password', 'bench-password-1', ...args],
    { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production', HOMEBASE_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => { err += d; });
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) { const ms = performance.now() - t0; child.kill('SIGTERM'); child.once('exit', () => resolve(ms)); }
    });
    child.once('exit', (code) => { if (!out.includes('\n')) reject(new Error(`serve exited with ${code}: ${err}`)); });
  });
}

export async function benchRestore(opts: RestoreBenchOptions = {}): Promise<RestoreBenchResult> {
  const main = opts.records ?? opts.size ?? 10_000;
  const sizes = opts.sizes ?? [...new Set([1_000, main])].sort((a, b) => a - b);
  const runs = opts.runs ?? 15;
  const log = (s: string) => { if (opts.verbose) process.stderr.write(`${s}\n`); };
  const figures: RestoreFigure[] = [];
  const storages = opts.storages ?? ['memory', 'disk', ...(pgBin ? ['postgres' as const] : [])];
  const cluster = storages.includes('postgres') ? await startPgCluster({ durable: true }) : undefined;
  try {
    for (const storage of storages) {
      for (const n of sizes) {
        for (const f of await measureRestore(n, storage, runs, cluster)) {
          log(`restore ${n} records (${storage}, ${f.mode}): median ${f.medianMs} ms (min ${f.minMs}, max ${f.maxMs})`);
          figures.push(f);
        }
      }
    }
  } finally {
    cluster?.stop();
  }
  const dir = await mkdtemp(join(tmpdir(), 'homebase-bench-seed-'));
  try {
    const file = join(dir, 'fixtures.json');
    await writeFile(file, JSON.stringify(dumpOf(main)));
    const seeded: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < 3; i++) {
      plain.push(await timeStart([]));
      seeded.push(await timeStart(['--seed', file]));
    }
    const seedStart = { records: main, medianMs: round(median(seeded)), withoutSeedMs: round(median(plain)) };
    log(`start with --seed of ${main} records: median ${seedStart.medianMs} ms (without a seed: ${seedStart.withoutSeedMs} ms)`);
    const mainFigure = figures.find((f) => f.storage === 'memory' && f.records === main && f.mode === 'full') ?? figures.find((f) => f.records === main && f.mode === 'full')!;
    return { ms: mainFigure.medianMs, figures, seedStart };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { records: { type: 'string' }, runs: { type: 'string' }, storages: { type: 'string' } } });
  const result = await benchRestore({
    records: values.records ? Number(values.records) : undefined, runs: values.runs ? Number(values.runs) : undefined, verbose: true,
    storages: values.storages ? values.storages.split(',') as Storage[] : undefined,
  });
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}
