// One benchmark run: builds the server, then for each data set size starts each target in turn
// (bare Express, json-server, Homebase), measures the four operations, and collects the extra
// figures (create series, start times, RSS, restore, optional suites) into one result object.
import { spawnSync } from 'node:child_process';
import type { RestoreBenchResult } from '../restore.js';
import { benchLists, type ListsBenchResult } from '../lists.js';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchOptions } from './options.js';
import { generatePeople, sampleIds, type Person } from './data.js';
import { measure, measureInterleaved, type Figure } from './load.js';
import { operation, type OpName, type TargetKind } from './operations.js';
import { probeOnce, rssMb, type Target } from './proc.js';
import { measureV2, type V2Figures } from './v2.js';
import { measureApiKey, type ApiKeyFigures } from './api-keys.js';
import { COLLECTION, homebaseCli, prepareHomebase, recordsPath, removeHomebaseData, startBareExpress, startHomebase,
  startJsonServer, unindexedRecordsPath, writeRecords, type HomebaseData } from './targets.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

export type OpFigures = Partial<Record<TargetKind, Figure>>;

export interface BenchResults {
  /** loadAvg: the machine's 1, 5 and 15 min load averages when the run started and ended (other
   *  work on the machine moves every figure; ratios are taken within one run). */
  machine: { cpu: string; nproc: number; node: string; platform: string; date: string; loadAvg?: number[]; loadAvgEnd?: number[] };
  options: Omit<BenchOptions, 'outDir' | 'verbose'>;
  tokenKind?: 'user' | 'admin';
  /** size → operation → figures per target. */
  ops: Record<string, Partial<Record<OpName, OpFigures>>>;
  /** Homebase create throughput by data set size. */
  createSeries: { size: number; figure: Figure }[];
  /** Spawn → first response (health) and spawn → first page of records (loads the collection).
   *  With records: medians of `startRuns` starts, each asking for the first page as soon as the
   *  health check answered; `pageAfterAnswerMs` is the median of (first page − first answer). */
  start: { size: number; emptyMs?: number; emptyRecordsMs?: number; loadedMs?: number; loadedRecordsMs?: number;
    pageAfterAnswerMs?: number; runs?: Array<{ answerMs: number; pageMs: number }> };
  rss: { size: number; afterLoadMb?: number; afterRunMb?: number };
  restore?: { size: number; ms: number; detail?: RestoreBenchResult };
  extra: Record<string, unknown>;
  notes: string[];
}

export function machineInfo(): BenchResults['machine'] {
  return {
    cpu: cpus()[0]?.model?.trim() ?? 'unknown',
    nproc: cpus().length,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
    loadAvg: loadavg(),
  };
}

/** Builds dist/ (tsc) and the bundle the package's bin runs (scripts/bundle-server.mjs). Type
 *  errors elsewhere in the tree don't stop the benchmark as long as the server was emitted. */
export function build(log: (s: string) => void): void {
  log('building (npm run build)...');
  const r = spawnSync(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) log('build reported type errors; using the emitted dist/ anyway');
  const b = spawnSync(process.execPath, ['scripts/bundle-server.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (b.status !== 0 || !existsSync(homebaseCli)) throw new Error(`build failed:\n${r.stdout}${r.stderr}${b.stdout}${b.stderr}`);
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };

export async function runBench(o: BenchOptions): Promise<BenchResults> {
  const log = (s: string) => { if (o.verbose) process.stderr.write(`[bench] ${s}\n`); };
  const { outDir: _out, verbose: _v, ...options } = o;
  const results: BenchResults = {
    machine: machineInfo(), options, ops: {}, createSeries: [],
    start: { size: o.startSize }, rss: { size: o.startSize }, extra: {}, notes: [],
  };
  const load = { connections: o.connections, warmup: o.warmup, duration: o.duration, repeats: o.repeats };
  if (o.build && !o.source) build(log);

  let hb: HomebaseData | undefined;
  try {
    hb = await prepareHomebase(o.source);
    results.tokenKind = hb.tokenKind;
    results.start.emptyMs = hb.emptyStartMs;
    results.start.emptyRecordsMs = hb.emptyRecordsMs;
    if (hb.tokenKind === 'admin') results.notes.push('Homebase was driven with the admin token: users / login were not available.');
  } catch (err) {
    results.notes.push(`Homebase not measured: ${(err as Error).message}`);
    log(`Homebase not measured: ${(err as Error).message}`);
  }

  /** Every operation on every running target, interleaved (see measureInterleaved). */
  const runOps = async (targets: Array<{ kind: TargetKind; target: Target }>, size: number, ids: string[], ops: OpName[]) => {
    for (const op of ops) {
      log(`${targets.map((t) => t.target.name).join(', ')} @ ${size}: ${op}`);
      const figs = await measureInterleaved(targets.map(({ kind, target }) => ({
        origin: target.origin,
        pid: target.child.pid,
        op: operation(op, { kind, base: kind === 'homebase' ? recordsPath : `/${COLLECTION}`, unindexedBase: unindexedRecordsPath, ids,
          token: kind === 'homebase' ? hb?.token : undefined }),
      })), load);
      figs.forEach((fig, i) => {
        ((results.ops[size] ??= {})[op] ??= {})[targets[i].kind] = fig;
        if (fig.errors) results.notes.push(`${targets[i].target.name} @ ${size} ${op}: ${fig.errors} non-2xx responses or errors`);
      });
    }
  };

  /** Starts Homebase over `people`, records start time / RSS when this is the start size. */
  const withHomebase = async (people: Person[], fn: (t: Target) => Promise<void>) => {
    if (!hb) return;
    await writeRecords(hb, people);
    if (people.length === o.startSize) {
      // o.startRuns starts (3 by default): spawn → first answer (health), then at once the first page of records.
      const runs: Array<{ answerMs: number; pageMs: number }> = [];
      for (let i = 0; i < o.startRuns; i++) {
        const first = await startHomebase(hb, '/api/health');
        try {
          const asked = performance.now();
          const status = await probeOnce(first.origin, { path: `${recordsPath}?limit=1`, headers: { authorization: `Bearer ${hb.token}` } });
          if (status !== 200) throw new Error(`first page after a start answered ${status}`);
          runs.push({ answerMs: first.startMs, pageMs: first.startMs + performance.now() - asked });
        } finally {
          await first.stop();
        }
      }
      results.start.runs = runs;
      results.start.loadedMs = median(runs.map((r) => r.answerMs));
      results.start.loadedRecordsMs = median(runs.map((r) => r.pageMs));
      results.start.pageAfterAnswerMs = median(runs.map((r) => r.pageMs - r.answerMs));
    }
    // The v2 rate limit stays on (its cost is part of v2's figures) but never refuses the load.
    const t = await startHomebase(hb, undefined, { serveArgs: ['--rate-limit', '1000000000'] });
    try {
      if (people.length === o.startSize) results.rss.afterLoadMb = rssMb(t.child.pid);
      await fn(t);
      if (people.length === o.startSize) results.rss.afterRunMb = rssMb(t.child.pid);
    } finally {
      await t.stop();
    }
  };

  try {
    for (const size of o.sizes) {
      const people = generatePeople(size);
      const ids = sampleIds(people);
      log(`data set of ${size} records`);
      // All three run at once (idle but the one being driven), measured in interleaved rounds.
      const bare = await startBareExpress();
      const js = await startJsonServer(people).catch(async (err) => { await bare.stop(); throw err; });
      try {
        const others = [{ kind: 'bare' as const, target: bare }, { kind: 'json-server' as const, target: js }];
        if (hb) await withHomebase(people, async (t) => {
          // Lists asked for the first time and the mix (bench/lists.ts), on a fresh server.
          if (o.ops.includes('list')) {
            log(`Homebase @ ${size}: first-asked lists and the mix`);
            ((results.extra.lists ??= {}) as Record<number, ListsBenchResult>)[size] = await benchLists(t, recordsPath, hb!.token, ids,
              { size, duration: o.duration, repeats: o.repeats, warmup: o.warmup, firstAsked: size >= 10_000 ? 200 : 20 });
          }
          await runOps([...others, { kind: 'homebase', target: t }], size, ids, o.ops);
          // v2 beside v1, on the same server and data.
          try {
            ((results.extra.v2 ??= []) as V2Figures[]).push(await measureV2(t, hb!.token, size, ids, load, log));
          } catch (err) {
            results.notes.push(`v2 @ ${size} not measured: ${(err as Error).message}`);
          }
          try {
            ((results.extra.apiKeys ??= []) as ApiKeyFigures[]).push(await measureApiKey(t, hb!.token, hb!.consoleToken, size, ids, load, log));
          } catch (err) {
            results.notes.push(`API key @ ${size} not measured: ${(err as Error).message}`);
          }
        });
        else await runOps(others, size, ids, o.ops);
      } finally {
        await bare.stop();
        await js.stop();
      }
      const create = results.ops[size]?.create?.homebase;
      if (create) results.createSeries.push({ size, figure: create });
    }
    for (const size of o.createSizes.filter((s) => !o.sizes.includes(s))) {
      const people = generatePeople(size);
      await withHomebase(people, async (t) => {
        log(`Homebase @ ${size}: create series`);
        const fig = await measure(t.origin, operation('create', { kind: 'homebase', base: recordsPath, ids: [], token: hb!.token }), load);
        results.createSeries.push({ size, figure: fig });
      });
    }
    results.createSeries.sort((a, b) => a.size - b.size);
    if (hb && results.start.loadedMs === undefined) {
      log(`Homebase: start with ${o.startSize} records`);
      await withHomebase(generatePeople(o.startSize), async () => undefined);
    }
  } finally {
    if (hb) await removeHomebaseData(hb);
  }

  if (o.restoreSize > 0) {
    results.restore = await optional('restore', 'benchRestore', { records: o.restoreSize, sizes: [...new Set([Math.min(1_000, o.restoreSize), o.restoreSize])], runs: 5 }, results, log) as BenchResults['restore'];
  }
  if (o.storage) results.extra.storage = await optional('storage', 'benchStorage', { sizeMB: 200 }, results, log);
  if (o.realtime) results.extra.realtime = await optional('realtime', 'benchRealtime', {}, results, log);
  if (o.console) results.extra.console = await optional('console', 'benchConsole', { records: 100_000, runs: 5, log }, results, log);
  // A server of its own (the built one, or the sources with --source), a collection of up to 1,000 records.
  if (o.graphql) {
    results.extra.graphql = await optional('graphql', 'benchGraphql', { size: Math.min(1_000, Math.max(50, ...o.sizes)), source: o.source, load, log }, results, log);
  }
  // The built server only (bundle and dist/server): --source runs skip it.
  if (o.testing && !o.source) results.extra.testing = await optional('testing', 'benchTesting', { log }, results, log);
  results.machine.loadAvgEnd = loadavg();
  return results;
}

/** Runs an optional suite (bench/<file>.ts exporting `fn`) when it exists. */
async function optional(file: string, fn: string, arg: unknown, results: BenchResults, log: (s: string) => void): Promise<unknown> {
  const path = join(ROOT, 'bench', `${file}.ts`);
  if (!existsSync(path)) { results.notes.push(`${fn}: bench/${file}.ts does not exist yet; not measured.`); return undefined; }
  try {
    log(`${fn}...`);
    const mod = await import(pathToFileURL(path).href) as Record<string, (a: unknown) => Promise<unknown>>;
    if (typeof mod[fn] !== 'function') { results.notes.push(`${fn}: not exported by bench/${file}.ts.`); return undefined; }
    const out = await mod[fn](arg);
    if (file !== 'restore') return out;
    const ms = typeof out === 'number' ? out : (out as { ms?: number; restoreMs?: number })?.ms ?? (out as { restoreMs?: number })?.restoreMs;
    return { size: (arg as { records: number }).records, ms: ms ?? NaN, detail: typeof out === 'number' ? undefined : out as RestoreBenchResult };
  } catch (err) {
    results.notes.push(`${fn} failed: ${(err as Error).message}`);
    return undefined;
  }
}
