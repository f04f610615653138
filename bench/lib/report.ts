// Turns a benchmark result into the one comparison table (plain text for the terminal,
// Markdown for the README / docs) and checks the issue's targets against it.
import type { GraphqlBenchResult } from '../graphql.js';
import type { ConsoleBenchResult } from '../console.js';
import type { TestingBenchResult } from '../testing.js';
import { RSS_MIX_TARGET, type ListsBenchResult } from '../lists.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchResults } from './suite.js';
import type { Figure } from './load.js';
import { OPS, OP_LABELS } from './operations.js';
import { v2Rows, v2Targets } from './v2-report.js';
import { apiKeyRows, apiKeyTargets } from './api-keys.js';

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const fmt = (n: number) => (n >= 100 ? int(n) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const fig = (f?: Figure) => (f ? `${fmt(f.median)} (${fmt(f.min)}–${fmt(f.max)})` : '–');
const ms1 = (median: number, min: number, max: number) => `${fmt(median)} (${fmt(min)}–${fmt(max)})`;
const ratio = (a?: Figure, b?: Figure) => (a && b && b.median > 0 ? `${fmt(a.median / b.median)}×` : '–');

export const HEADER = ['Measure', 'Records', 'Homebase', 'json-server', 'bare Express', 'HB / json-server', 'HB / bare'];

export function rows(r: BenchResults): string[][] {
  const out: string[][] = [];
  for (const size of Object.keys(r.ops).map(Number).sort((a, b) => a - b)) {
    for (const op of OPS) {
      const f = r.ops[size]?.[op];
      if (!f) continue;
      out.push([`${OP_LABELS[op]} (req/s)`, int(size), fig(f.homebase), fig(f['json-server']), fig(f.bare),
        ratio(f.homebase, f['json-server']), ratio(f.homebase, f.bare)]);
    }
  }
  for (const { size, figure } of r.createSeries) out.push(['create series, Homebase (req/s)', int(size), fig(figure), '', '', '', '']);
  for (const l of Object.values((r.extra.lists ?? {}) as Record<string, ListsBenchResult>)) {
    for (const f of l.firstAsked) out.push([`first-asked page of 50, ${f.name}: median (p95) ms${f.cpuMs !== undefined ? '; server CPU ms' : ''}`, int(l.size), `${f.medianMs.toFixed(2)} (${f.p95Ms.toFixed(2)})${f.cpuMs !== undefined ? `; ${f.cpuMs.toFixed(2)}` : ''}`, '', '', '', '']);
    out.push(['mix: 50 % GET, 20 % varied lists, 15 % PATCH, 15 % POST (req/s)', int(l.size), `${fmt(l.mix.median)} (${fmt(Math.min(...l.mix.rps))}–${fmt(Math.max(...l.mix.rps))})`, '', '', '', '']);
    if (l.mix.cpuMs !== undefined) out.push(['mix: server main-thread CPU per request (ms) → req/s one free core could serve', int(l.size), `${l.mix.cpuMs.toFixed(3)} → ${fmt(1000 / l.mix.cpuMs)}`, '', '', '', '']);
    if (l.rss.maxDuringMb !== undefined) out.push([`RSS during the mix, at most / 2 s after (MB)${l.size === RSS_MIX_TARGET.records ? `; target ≤ ${RSS_MIX_TARGET.mb} / ≤ ${RSS_MIX_TARGET.mb}` : ''}`, int(l.size), `${int(l.rss.maxDuringMb)} / ${int(l.rss.afterMb ?? 0)}`, '', '', '', '']);
  }
  const ms = (label: string, size: string, v?: number) => { if (v !== undefined) out.push([label, size, int(v), '', '', '', '']); };
  ms('start → first response (ms)', '0', r.start.emptyMs);
  ms('start → first response (ms)', int(r.start.size), r.start.loadedMs);
  ms('start → first page of records (ms)', '0', r.start.emptyRecordsMs);
  ms('start → first page of records (ms)', int(r.start.size), r.start.loadedRecordsMs);
  ms('first answer → first page of records (ms)', int(r.start.size), r.start.pageAfterAnswerMs);
  if (r.rss.afterLoadMb !== undefined) out.push(['RSS after load (MB)', int(r.rss.size), int(r.rss.afterLoadMb), '', '', '', '']);
  if (r.rss.afterRunMb !== undefined) out.push(['RSS after the runs (MB)', int(r.rss.size), int(r.rss.afterRunMb), '', '', '', '']);
  const restores = r.restore?.detail?.figures;
  if (restores?.length) {
    const where = { memory: 'in memory', disk: 'on disk', postgres: 'on PostgreSQL' } as const;
    const how = { changed: 'after a test changed a record', full: 'whole workspace rewritten' } as const;
    for (const f of restores) out.push([`snapshot restore, ${where[f.storage]}, ${how[f.mode]} (ms)`, int(f.records), ms1(f.medianMs, f.minMs, f.maxMs), '', '', '', '']);
  } else if (r.restore && Number.isFinite(r.restore.ms)) out.push(['snapshot restore (ms)', int(r.restore.size), int(r.restore.ms), '', '', '', '']);
  const c = r.extra.console as ConsoleBenchResult | undefined;
  if (c) {
    out.push(['console: navigate → first records page, Chromium (ms)', int(c.records), ms1(c.firstPageMs.median, c.firstPageMs.min, c.firstPageMs.max), '', '', '', '']);
    out.push(['console: Next → next page of 100 (ms)', int(c.records), `${int(c.nextPageMs.median)} (max ${int(c.nextPageMs.max)})`, '', '', '', '']);
    out.push(['console: longest main-thread task while paging (ms)', int(c.records), int(c.longestTaskMs), '', '', '', '']);
    out.push(['console: records page JavaScript, gzip (KiB)', `${c.recordsPageJs.files} files`, fmt(c.recordsPageJs.gzipBytes / 1024), '', '', '', '']);
  }
  out.push(...testingRows(r.extra.testing as TestingBenchResult | undefined));
  out.push(...v2Rows(r));
  out.push(...apiKeyRows(r));
  const seed = r.restore?.detail?.seedStart;
  if (seed) {
    out.push(['start with --seed → first response (ms)', int(seed.records), int(seed.medianMs), '', '', '', '']);
    out.push(['start without a seed → first response (ms)', '0', int(seed.withoutSeedMs), '', '', '', '']);
  }
  return out;
}

/** The test-suite rows (bench/testing.ts), with the peers' published figures in the Measure
 *  column where there are some. */
function testingRows(t: TestingBenchResult | undefined): string[][] {
  if (!t) return [];
  const out: string[][] = [];
  const row = (label: string, size: string, v: number | undefined) => { if (v !== undefined) out.push([label, size, fmt(v), '', '', '', '']); };
  row('node -e 0: spawn → exit, the floor of any start (ms)', '0', t.start.nodeFloorMs);
  row('CLI serve --in-memory: spawn → first answer, the package\'s bin (bundle) (ms)', '0', t.start.cliFirstAnswerMs);
  row('CLI serve --in-memory: spawn → first answer, unbundled dist (ms)', '0', t.start.cliFirstAnswerUnbundledMs);
  row('import of the package, bundle (ms)', '0', t.start.importMs);
  row('import of the package, unbundled dist (ms)', '0', t.start.importUnbundledMs);
  row('startServer() of an empty in-memory server (ms)', '0', t.start.startServerMs);
  row('fork of a workspace, in memory, median (ms)', int(t.fork.records), t.fork.memoryMs);
  row('fork of a workspace, on disk, median (ms)', int(t.fork.records), t.fork.diskMs);
  row('fork of a workspace, on PostgreSQL, median (ms)', int(t.fork.records), t.fork.postgresMs);
  row(`suite: ${t.suite.tests} tests, each a fork + ${t.suite.requestsPerTest} requests + its deletion (ms)`, '100', t.suite.totalMs);
  // The floor moves with the machine's load: the same run's ratio to it says more than the ms.
  const floor = t.start.nodeFloorMs;
  const per = (label: string, v: number | undefined) => { if (v !== undefined && floor > 0) out.push([label, '0', `${fmt(v / floor)}×`, '', '', '', '']); };
  per('CLI first answer ÷ node -e 0, the package\'s bin (target 250 ÷ 52 ≈ 4.8×)', t.start.cliFirstAnswerMs);
  per('CLI first answer ÷ node -e 0, unbundled dist (before: 389 ÷ 52 ≈ 7.5×)', t.start.cliFirstAnswerUnbundledMs);
  per('startServer() ÷ node -e 0 (target 60 ÷ 52 ≈ 1.2×)', t.start.startServerMs);
  return out;
}

export interface TargetCheck { target: string; value: string; ok: boolean | undefined }

/** The issue's targets, each with the measured value and whether it is met (undefined = not measured). */
export function checkTargets(r: BenchResults): TargetCheck[] {
  const out: TargetCheck[] = [];
  const sizes = Object.keys(r.ops).map(Number).sort((a, b) => a - b);
  const small = sizes.find((s) => s <= 10_000) ?? sizes[0];
  const large = sizes[sizes.length - 1];
  const cmp = (target: string, a: Figure | undefined, b: Figure | undefined, min: number) => {
    const v = a && b && b.median > 0 ? a.median / b.median : undefined;
    out.push({ target, value: v === undefined ? 'not measured' : `${fmt(v)}×`, ok: v === undefined ? undefined : v >= min });
  };
  for (const s of sizes) {
    cmp(`GET by id ≥ 0.8 × bare Express @ ${int(s)} (medians)`, r.ops[s]?.get?.homebase, r.ops[s]?.get?.bare, 0.8);
    // The target holds in every run, not only the best one. Rounds are interleaved (each round runs
    // every target once), so round i of Homebase is compared with round i of bare Express.
    const hb = r.ops[s]?.get?.homebase, bare = r.ops[s]?.get?.bare;
    const ratios = hb && bare ? hb.runs.map((v, i) => (bare.runs[i] > 0 ? v / bare.runs[i] : 0)) : [];
    const worst = ratios.length ? Math.min(...ratios) : undefined;
    out.push({ target: `GET by id ≥ 0.8 × bare Express @ ${int(s)} in every round`, value: worst === undefined ? 'not measured' : `${ratios.map((v) => `${fmt(v)}×`).join(', ')}`, ok: worst === undefined ? undefined : worst >= 0.8 });
  }
  // The json-server ratios of lists are targets at 100,000 records: checked at the
  // first size from 100,000 on, else at the largest measured (labelled with its size).
  const big = sizes.find((s) => s >= 100_000) ?? large;
  const label = int(big ?? 100_000);
  if (small !== undefined) cmp(`list of 50 ≥ 0.5 × bare Express @ ${int(small)}`, r.ops[small]?.list?.homebase, r.ops[small]?.list?.bare, 0.5);
  cmp(`list of 50 ≥ 200 × json-server @ ${label}`, big ? r.ops[big]?.list?.homebase : undefined, big ? r.ops[big]?.list?.['json-server'] : undefined, 200);
  if (small !== undefined) cmp(`list of 50, no index on the sort field, ≥ 0.5 × bare Express @ ${int(small)}`, r.ops[small]?.listUnindexed?.homebase, r.ops[small]?.listUnindexed?.bare, 0.5);
  cmp(`list of 50, no index on the sort field, ≥ 200 × json-server @ ${label}`, big ? r.ops[big]?.listUnindexed?.homebase : undefined, big ? r.ops[big]?.listUnindexed?.['json-server'] : undefined, 200);
  if (small !== undefined) cmp(`create ≥ 10 × json-server @ ${int(small)}`, r.ops[small]?.create?.homebase, r.ops[small]?.create?.['json-server'], 10);
  if (small !== undefined && large !== undefined && large !== small) {
    const a = r.ops[large]?.create?.homebase, b = r.ops[small]?.create?.homebase;
    const v = a && b ? a.median / b.median : undefined;
    out.push({ target: `create @ ${int(large)} within 20 % of @ ${int(small)}`, value: v === undefined ? 'not measured' : `${(v * 100).toFixed(0)} %`, ok: v === undefined ? undefined : v >= 0.8 });
  }
  {
    const v = r.start.loadedMs;
    const n = r.start.runs?.length;
    const of = n ? ` (median of ${n} start${n > 1 ? 's' : ''})` : '';
    out.push({ target: `start with ${int(r.start.size)} records: first response < 1 s${of}`, value: v === undefined ? 'not measured' : `${int(v)} ms`, ok: v === undefined ? undefined : v < 1000 });
    const p = r.start.pageAfterAnswerMs;
    const each = r.start.runs?.map((x) => `+${int(x.pageMs - x.answerMs)}`).join(', ');
    out.push({ target: `start with ${int(r.start.size)} records: first page ≤ first response + 300 ms${of}`, value: p === undefined ? 'not measured' : `+${int(p)} ms${each && n! > 1 ? ` (${each})` : ''}`, ok: p === undefined ? undefined : p <= 300 });
  }
  // Snapshot restore: the slowest of the measured kinds at each size.
  for (const [records, limit] of [[1_000, 50], [10_000, 300]] as const) {
    const figs = r.restore?.detail?.figures.filter((f) => f.records === records) ?? [];
    const worst = figs.length ? Math.max(...figs.map((f) => f.medianMs)) : undefined;
    if (worst !== undefined || r.restore) out.push({ target: `snapshot restore of ${int(records)} records < ${limit} ms (slowest kind)`, value: worst === undefined ? 'not measured' : `${fmt(worst)} ms`, ok: worst === undefined ? undefined : worst < limit });
  }
  const c = r.extra.console as ConsoleBenchResult | undefined;
  if (c || r.options.console) {
    out.push({ target: `console: first records page at ${int(c?.records ?? 100_000)} records within 1 s (Chromium)`, value: c ? `${int(c.firstPageMs.median)} ms` : 'not measured', ok: c ? c.firstPageMs.median <= 1000 : undefined });
    out.push({ target: 'console: paging never freezes (longest task < 200 ms)', value: c ? `${int(c.longestTaskMs)} ms` : 'not measured', ok: c ? c.longestTaskMs < 200 : undefined });
  }
  const t = r.extra.testing as TestingBenchResult | undefined;
  // The test-suite rows need the built server (bench/testing.ts spawns the bundle), so a --source run skips them.
  if (t || (r.options.testing && !r.options.source)) {
    const check = (target: string, v: number | undefined, limit: number) => out.push({ target, value: v === undefined ? 'not measured' : `${fmt(v)} ms`, ok: v === undefined ? undefined : v <= limit });
    check('CLI spawn → first answer ≤ 250 ms (empty, in memory; node -e 0 is this run\'s floor; peers: Supabase local 1–3 min in CI, Firebase emulator seconds and Java)', t?.start.cliFirstAnswerMs ?? t?.start.cliFirstAnswerUnbundledMs, 250);
    check('startServer() ≤ 60 ms (empty, in memory)', t?.start.startServerMs, 60);
    check(`fork of ${int(t?.fork.records ?? 10_000)} records ≤ 10 ms median, in memory`, t?.fork.memoryMs, 10);
    check(`fork of ${int(t?.fork.records ?? 10_000)} records ≤ 10 ms median, on disk`, t?.fork.diskMs, 10);
    check(`${t?.suite.tests ?? 200} tests with a fork each < 10 s (peers: a Supabase db reset takes 1 to 30 min, supabase/cli#6172)`, t?.suite.totalMs, 10_000);
  }
  out.push(...v2Targets(r));
  out.push(...apiKeyTargets(r));
  const gql = r.extra.graphql as GraphqlBenchResult | undefined;
  if (gql || r.options.graphql) {
    out.push({
      target: 'GraphQL list of 50 ≥ 0.5 × the same REST list (v2, interleaved)',
      value: gql ? `${fmt(gql.ratio)}× (${int(gql.graphql.median)} vs ${int(gql.rest.median)} req/s)` : 'not measured',
      ok: gql ? gql.ratio >= 0.5 : undefined,
    });
  }
  for (const l of Object.values((r.extra.lists ?? {}) as Record<string, ListsBenchResult>)) {
    if (l.size !== RSS_MIX_TARGET.records || l.rss.maxDuringMb === undefined) continue;
    const during = l.rss.maxDuringMb, after = l.rss.afterMb;
    out.push({ target: `RSS throughout the lists mix at ${int(l.size)} records ≤ ${RSS_MIX_TARGET.mb} MB (sampled every 200 ms)`, value: `${int(during)} MB`, ok: during <= RSS_MIX_TARGET.mb });
    out.push({ target: `RSS 2 s after the lists mix at ${int(l.size)} records ≤ ${RSS_MIX_TARGET.mb} MB`, value: after === undefined ? 'not measured' : `${int(after)} MB`, ok: after === undefined ? undefined : after <= RSS_MIX_TARGET.mb });
  }
  const mb = r.rss.afterLoadMb;
  out.push({ target: `RSS after load with ${int(r.rss.size)} records < 300 MB`, value: mb === undefined ? 'not measured' : `${int(mb)} MB`, ok: mb === undefined ? undefined : mb < 300 });
  return out;
}

const mark = (ok: boolean | undefined) => (ok === undefined ? '?' : ok ? 'met' : 'NOT met');

function machineLine(r: BenchResults): string {
  const m = r.machine;
  const load = m.loadAvg ? `; load average ${m.loadAvg.map((l) => l.toFixed(1)).join(' / ')} at the start` + (m.loadAvgEnd ? `, ${m.loadAvgEnd.map((l) => l.toFixed(1)).join(' / ')} at the end (1 / 5 / 15 min)` : ' (1 / 5 / 15 min)') : '';
  return `${m.cpu}, ${m.nproc} cores (nproc), Node ${m.node}, ${m.platform}, ${m.date.slice(0, 16).replace('T', ' ')} UTC${load}`;
}

function settingsLine(r: BenchResults): string {
  const o = r.options;
  return `${o.connections} connections, ${o.warmup} s warm-up, ${o.repeats} × ${o.duration} s runs per figure (median, min–max); ` +
    `Homebase with ${r.tokenKind === 'user' ? "a signed-in user's" : 'the admin'} token`;
}

export function toText(r: BenchResults): string {
  const all = [HEADER, ...rows(r)];
  const widths = HEADER.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const line = (row: string[]) => row.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const out = [line(HEADER), widths.map((w) => '-'.repeat(w)).join('  '), ...rows(r).map(line), ''];
  out.push(`Machine: ${machineLine(r)}`, `Settings: ${settingsLine(r)}`, '', 'Targets:');
  for (const t of checkTargets(r)) out.push(`  [${mark(t.ok)}] ${t.target}: ${t.value}`);
  if (r.notes.length) out.push('', 'Notes:', ...r.notes.map((n) => `  - ${n}`));
  return out.join('\n') + '\n';
}

export function toMarkdown(r: BenchResults): string {
  const md = (row: string[]) => `| ${row.join(' | ')} |`;
  const out = [md(HEADER), md(HEADER.map((_, i) => (i < 2 ? '---' : '---:'))), ...rows(r).map(md), ''];
  out.push(`Machine: ${machineLine(r)}.  `, `Settings: ${settingsLine(r)}.`, '', '| Target | Measured | |', '|---|---:|---|');
  for (const t of checkTargets(r)) out.push(md([t.target, t.value, mark(t.ok)]));
  if (r.notes.length) out.push('', ...r.notes.map((n) => `- ${n}`));
  return out.join('\n') + '\n';
}

/** Writes latest.json / latest.md and a timestamped copy of each; returns the paths. */
export async function writeResults(results: BenchResults, outDir: string): Promise<string[]> {
  await mkdir(outDir, { recursive: true });
  const stamp = results.machine.date.replace(/[:.]/g, '-');
  const files: string[] = [];
  for (const name of ['latest', stamp]) {
    files.push(join(outDir, `${name}.json`), join(outDir, `${name}.md`));
    await writeFile(join(outDir, `${name}.json`), JSON.stringify(results, null, 2) + '\n');
    await writeFile(join(outDir, `${name}.md`), toMarkdown(results));
  }
  return files;
}

