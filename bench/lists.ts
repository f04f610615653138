// Lists as clients meet them, not the one query the answer memo serves again: first-asked pages
// (a write before each, so nothing is remembered) timed one at a time, and a mix of reads,
// lists and writes under load with the server's RSS sampled throughout. Part of `npm run bench`
// (Homebase only, at each size, before the other operations); alone:
//   npx tsx bench/lists.ts              (the build: npm run build first)
//   SOURCE=1 npx tsx bench/lists.ts     (from the TypeScript sources)
// Environment for the standalone run: SIZE (100000), DURATION (s per mix run, 5), REPEATS (3),
// FIRST (first-asked requests per shape, 200), CLI (another build's dist/server/cli.js), NODE_ARGS
// (flags for the server's node, space-separated: `--cpu-prof --cpu-prof-dir=/tmp/prof`, `--trace-gc`).
import http from 'node:http';
import autocannon from 'autocannon';
import { personBody, prng, ROLES } from './lib/data.js';
import { median } from './lib/load.js';
import { mainThreadCpuMs, rssMb, type Target } from './lib/proc.js';

/** The first-asked pages: name → query for the n-th request (its values vary). */
export const FIRST_ASKED: Array<[string, (rand: () => number) => string]> = [
  ['filter on an indexed field, sorted on an indexed field (filter[role], sort=-age)',
    (r) => `filter[role]=${ROLES[Math.floor(r() * 4)]}&sort=-age&limit=50`],
  ['indexed range, sorted on the same index (filter[age][$gte], sort=age)',
    (r) => `filter[age][$gte]=${18 + Math.floor(r() * 63)}&sort=age&limit=50`],
  ['indexed range, sorted on an unindexed field (filter[age][$gte], sort=name)',
    (r) => `filter[age][$gte]=${18 + Math.floor(r() * 63)}&sort=name&limit=50`],
  ['indexed filter, sorted on an unindexed field (filter[role], sort=-email)',
    (r) => `filter[role]=${ROLES[Math.floor(r() * 4)]}&sort=-email&limit=50`],
];

const MIX_SORTS = ['age', '-age', 'name', '-email'];

/** The server's resident memory during the mix and 2 s after it, at this many records. */
export const RSS_MIX_TARGET = { records: 100_000, mb: 300 };

export interface FirstAskedFigure {
  name: string; medianMs: number; p95Ms: number; n: number;
  /** The server's main-thread CPU time per request (median), when it can be read (Linux). */
  cpuMs?: number;
}
export interface ListsBenchResult {
  size: number;
  firstAsked: FirstAskedFigure[];
  /** The mix: 50 % GET by id, 20 % lists, 15 % partial updates, 15 % creates (10 connections). */
  mix: { rps: number[]; median: number; errors: number; p50: number; p99: number; statuses?: Record<string, number>;
    /** The server's main-thread CPU time per answered request over the measured runs (Linux): the
     *  request rate one free core could serve is 1000 / cpuMs, whatever else the machine runs. */
    cpuMs?: number };
  rss: { beforeMb?: number; maxDuringMb?: number; afterMb?: number };
}

function keepAliveGet(agent: http.Agent, origin: string, path: string, token: string, method = 'GET', body?: string): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(`${origin}${path}`, {
      method, agent,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs the first-asked pages and the mix against a running Homebase (`base`: its records path). */
export async function benchLists(t: Target, base: string, token: string, ids: string[],
  o: { duration: number; repeats: number; warmup: number; firstAsked: number; size: number }): Promise<ListsBenchResult> {
  const rand = prng(11);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const pick = () => ids[Math.floor(rand() * ids.length)];
  const touch = () => keepAliveGet(agent, t.origin, `${base}/${pick()}`, token, 'PATCH', JSON.stringify({ score: Math.round(rand() * 10_000) / 100 }));
  const result: ListsBenchResult = { size: o.size, firstAsked: [], mix: { rps: [], median: 0, errors: 0, p50: 0, p99: 0 }, rss: {} };
  try {
    // Warm-up of every shape (code paths, deferred indexes), not counted.
    for (const [, query] of FIRST_ASKED) for (let i = 0; i < 20; i++) { await touch(); await keepAliveGet(agent, t.origin, `${base}?${query(rand)}`, token); }
    for (const [name, query] of FIRST_ASKED) {
      const times: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < o.firstAsked; i++) {
        await touch(); // every write clears the answer memo: this page was never asked before
        const c0 = mainThreadCpuMs(t.child.pid);
        const r = await keepAliveGet(agent, t.origin, `${base}?${query(rand)}`, token);
        const c1 = mainThreadCpuMs(t.child.pid);
        if (r.status !== 200) throw new Error(`${name}: ${r.status}`);
        times.push(r.ms);
        if (c0 !== undefined && c1 !== undefined) cpu.push(c1 - c0);
      }
      times.sort((a, b) => a - b);
      cpu.sort((a, b) => a - b);
      result.firstAsked.push({ name, medianMs: median(times), p95Ms: times[Math.floor(times.length * 0.95)], n: times.length, ...(cpu.length ? { cpuMs: median(cpu) } : {}) });
    }
  } finally {
    agent.destroy();
  }

  // The mix, with RSS sampled every 200 ms.
  result.rss.beforeMb = rssMb(t.child.pid);
  let maxRss = result.rss.beforeMb ?? 0;
  const sampler = setInterval(() => { maxRss = Math.max(maxRss, rssMb(t.child.pid) ?? 0); }, 200);
  let created = 0;
  const statuses: Record<string, number> = {};
  const samples: Record<number, string> = {};
  const mixRequest = (): { method: string; path: string; body?: string } => {
    const x = rand();
    if (x < 0.5) return { method: 'GET', path: `${base}/${pick()}` };
    if (x < 0.7) {
      const filter = rand() < 0.5 ? `filter[age][$gte]=${18 + Math.floor(rand() * 63)}` : `filter[role]=${ROLES[Math.floor(rand() * 4)]}`;
      return { method: 'GET', path: `${base}?${filter}&sort=${MIX_SORTS[Math.floor(rand() * 4)]}&limit=50` };
    }
    if (x < 0.85) return { method: 'PATCH', path: `${base}/${pick()}`, body: JSON.stringify({ age: 18 + Math.floor(rand() * 63), score: Math.round(rand() * 10_000) / 100 }) };
    return { method: 'POST', path: base, body: JSON.stringify(personBody(rand, 2_000_000 + created++)) };
  };
  const run = async (seconds: number) => {
    const r = await autocannon({
      url: t.origin, connections: 10, duration: seconds, timeout: 30,
      requests: [{
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        // A whole request each time: one spread from the previous request kept its body's
        // Content-Length on a GET, which the server rightly refused as malformed.
        setupRequest: () => {
          const m = mixRequest();
          return { method: m.method, path: m.path, headers: { authorization: `Bearer ${token}`, ...(m.body ? { 'content-type': 'application/json' } : {}) }, ...(m.body ? { body: m.body } : {}) } as never;
        },
        onResponse: (status: number, body: string) => { if (status >= 300 && !samples[status]) samples[status] = body.slice(0, 300); },
      }],
    });
    const codes = (r as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
    for (const [code, { count }] of Object.entries(codes)) if (!code.startsWith('2')) statuses[code] = (statuses[code] ?? 0) + count;
    if (r.timeouts) statuses.timeout = (statuses.timeout ?? 0) + r.timeouts;
    return { rps: r['2xx'] / (r.duration > 0 ? r.duration : seconds), answered: r.requests.total, errors: r.non2xx + r.errors + r.timeouts, p50: r.latency.p50, p99: r.latency.p99 };
  };
  try {
    if (o.warmup > 0) await run(o.warmup);
    const runs = [];
    const cpu0 = mainThreadCpuMs(t.child.pid);
    for (let i = 0; i < o.repeats; i++) runs.push(await run(o.duration));
    const cpu1 = mainThreadCpuMs(t.child.pid);
    const answered = runs.reduce((n, r) => n + r.answered, 0);
    const mid = [...runs].sort((a, b) => a.rps - b.rps)[runs.length >> 1];
    result.mix = { rps: runs.map((r) => r.rps), median: median(runs.map((r) => r.rps)), errors: runs.reduce((n, r) => n + r.errors, 0), p50: mid.p50, p99: mid.p99, statuses,
      ...(cpu0 !== undefined && cpu1 !== undefined && answered > 0 ? { cpuMs: (cpu1 - cpu0) / answered } : {}) };
  } finally {
    clearInterval(sampler);
  }
  if (process.env.SAMPLES) process.stderr.write(`non-2xx samples: ${JSON.stringify(samples)}\n`);
  result.rss.maxDuringMb = Math.max(maxRss, rssMb(t.child.pid) ?? 0);
  await new Promise((r) => setTimeout(r, 2000));
  result.rss.afterMb = rssMb(t.child.pid);
  return result;
}

export function listsText(r: ListsBenchResult): string {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const lines = [`Lists at ${n(r.size)} records`];
  for (const f of r.firstAsked) lines.push(`  first-asked page of 50, ${f.name}: median ${f.medianMs.toFixed(2)} ms, p95 ${f.p95Ms.toFixed(2)} ms (${f.n} requests, one at a time, over HTTP${f.cpuMs !== undefined ? `; server CPU ${f.cpuMs.toFixed(2)} ms` : ''})`);
  lines.push(`  mix (50 % GET, 20 % lists, 15 % PATCH, 15 % POST; 10 connections): ${n(r.mix.median)} req/s (runs ${r.mix.rps.map(n).join(', ')}), p50 ${r.mix.p50} ms, p99 ${r.mix.p99} ms, ${r.mix.errors} errors ${JSON.stringify(r.mix.statuses ?? {})}${r.mix.cpuMs !== undefined ? `; server CPU ${r.mix.cpuMs.toFixed(3)} ms a request (${n(1000 / r.mix.cpuMs)} req/s on one free core)` : ''}`);
  lines.push(`  RSS: ${n(r.rss.beforeMb ?? 0)} MB before the mix, at most ${n(r.rss.maxDuringMb ?? 0)} MB during it, ${n(r.rss.afterMb ?? 0)} MB 2 s after${r.size === RSS_MIX_TARGET.records ? ` (target ≤ ${RSS_MIX_TARGET.mb} MB during and after)` : ''}`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { generatePeople, sampleIds } = await import('./lib/data.js');
  const { prepareHomebase, writeRecords, startHomebase, removeHomebaseData, recordsPath } = await import('./lib/targets.js');
  const size = Number(process.env.SIZE ?? 100_000);
  const hb = await prepareHomebase(!!process.env.SOURCE);
  const people = generatePeople(size);
  await writeRecords(hb, people);
  const t = await startHomebase(hb, undefined, { ...(process.env.CLI ? { cli: process.env.CLI } : {}), nodeArgs: (process.env.NODE_ARGS ?? '').split(' ').filter(Boolean) });
  try {
    const loaded = rssMb(t.child.pid);
    const r = await benchLists(t, recordsPath, hb.token, sampleIds(people), {
      size, duration: Number(process.env.DURATION ?? 5), repeats: Number(process.env.REPEATS ?? 3), warmup: 2, firstAsked: Number(process.env.FIRST ?? 200),
    });
    process.stdout.write(`RSS after load: ${Math.round(loaded ?? 0)} MB\n${listsText(r)}\n`);
  } finally {
    await t.stop();
    await removeHomebaseData(hb);
  }
}
