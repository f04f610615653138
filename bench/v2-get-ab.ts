// v2's GET by id against v1's on the same server, in interleaved runs: req/s, the server's CPU
// time per answered request (from /proc; its system part in brackets) and the bytes of each
// answer, medians of the rounds and the v2/v1 ratios. On a loaded machine the CPU time per
// request is the steadier figure. How the v2 fast path was judged (docs/v2.md, "Speed");
// `npm run bench` has the same row. Needs the bundle (npm run build:bundle). Not part of
// `npm run bench`.
//   npx tsx bench/v2-get-ab.ts
//   cp -r dist .ab-old; (change, npm run build:bundle)
//   HB_CLIS=$PWD/.ab-old/server/bundle/cli.js,$PWD/dist/server/bundle/cli.js npx tsx bench/v2-get-ab.ts
// Environment: SIZE (10000), ROUNDS (5), DUR (seconds per run, 4), RATE_LIMIT (1000000000; 0
// turns the v2 limiter off; comma-separated: one per build), HB_CLIS (comma-separated builds,
// each its own server), HB_NODE_ARGS (extra node flags, e.g. --cpu-prof or --perf-basic-prof),
// ONLY (v1 | v2: both rows drive that version, for a profile of it alone), SHOW_PID=1 (prints
// the servers' process ids, for `perf record -p`).
import { readFileSync, cpSync, rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { generatePeople, sampleIds } from './lib/data.js';
import { prepareHomebase, writeRecords, startHomebase, removeHomebaseData, recordsPath, homebaseCli } from './lib/targets.js';
import { operation } from './lib/operations.js';
import type { Target } from './lib/proc.js';

const size = Number(process.env.SIZE ?? 10000);
const rounds = Number(process.env.ROUNDS ?? 5);
const dur = Number(process.env.DUR ?? 4);
const rateLimit = process.env.RATE_LIMIT ?? '1000000000';
const v2Path = recordsPath.replace('/api/app/', '/api/v2/app/');

function ticks(pid: number) { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return [Number(f[11]), Number(f[12])]; }
let answered = 0;
async function run(t: Target, o: ReturnType<typeof operation>, seconds: number) {
  const pid = t.child.pid!;
  const t0 = ticks(pid);
  const r = await autocannon({ url: t.origin, connections: 10, duration: seconds, requests: [{ method: 'GET', headers: o.headers, setupRequest: (req) => ({ ...req, path: o.next().path }) as typeof req }] });
  const t1 = ticks(pid);
  answered += r['2xx'];
  await new Promise((res) => setTimeout(res, 300));
  const per = (ticksUsed: number) => (ticksUsed * 10_000) / Math.max(1, r['2xx']);
  return { rps: r['2xx'] / r.duration, us: per(t1[0] + t1[1] - t0[0] - t0[1]), sys: per(t1[1] - t0[1]), bytes: r.throughput.total / Math.max(1, r.requests.total), err: r.non2xx + r.errors };
}

const hb = await prepareHomebase();
const people = generatePeople(size);
const ids = sampleIds(people);
await writeRecords(hb, people);
const clis = (process.env.HB_CLIS ?? homebaseCli).split(',');
const servers: Target[] = [];
const rows: Array<{ name: string; t: Target; o: ReturnType<typeof operation> }> = [];
try {
  for (const [i, cli] of clis.entries()) {
    const dir = `${hb.dir}-${i}`;
    cpSync(hb.dir, dir, { recursive: true });
    const t = await startHomebase({ ...hb, dir }, undefined, { cli, nodeArgs: (process.env.HB_NODE_ARGS ?? '').split(' ').filter(Boolean), serveArgs: ['--rate-limit', rateLimit.split(',')[i] ?? rateLimit] });
    servers.push(t);
    if (process.env.SHOW_PID) console.log(`server ${i}: pid ${t.child.pid}`);
    const tag = clis.length > 1 ? `#${i} ` : '';
    rows.push({ name: `${tag}v1`, t, o: operation('get', { kind: 'homebase', base: process.env.ONLY === 'v2' ? v2Path : recordsPath, ids, token: hb.token }) });
    rows.push({ name: `${tag}v2`, t, o: operation('get', { kind: 'homebase', base: process.env.ONLY === 'v1' ? recordsPath : v2Path, ids, token: hb.token }) });
  }
  const sums = rows.map(() => ({ rps: [] as number[], us: [] as number[] }));
  for (const x of rows) await run(x.t, x.o, 2);
  for (let i = 0; i < rounds; i++) {
    const line: string[] = [];
    for (const [j, x] of rows.entries()) {
      const r = await run(x.t, x.o, dur);
      sums[j].rps.push(r.rps); sums[j].us.push(r.us);
      line.push(`${x.name} ${r.rps.toFixed(0)}/s ${r.us.toFixed(0)}µs (sys ${r.sys.toFixed(0)}) ${r.bytes.toFixed(0)} B${r.err ? ` err ${r.err}` : ''}`);
    }
    console.log(`r${i}: ${line.join(' | ')}`);
  }
  const med = (a: number[]) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
  console.log(`median: ${rows.map((x, j) => `${x.name} ${med(sums[j].rps).toFixed(0)}/s ${med(sums[j].us).toFixed(0)}µs`).join(' | ')}`);
  for (let j = 0; j < rows.length; j += 2) {
    const perRound = sums[j + 1].rps.map((v, i) => v / sums[j].rps[i]);
    console.log(`${rows[j].name.replace('v1', '')}v2/v1: req/s ${(med(sums[j + 1].rps) / med(sums[j].rps)).toFixed(2)}× (per round median ${med(perRound).toFixed(2)}×), CPU/request ${(med(sums[j].us) / med(sums[j + 1].us)).toFixed(2)}×`);
  }
  console.log(`answered in all (warm-up included): ${answered}`);
} finally {
  for (const t of servers) await t.stop();
  await removeHomebaseData(hb);
  for (let i = 0; i < clis.length; i++) rmSync(`${hb.dir}-${i}`, { recursive: true, force: true });
}
