// A/B of Homebase builds on one operation, against bare Express in the same interleaved rounds:
// req/s, the server's CPU time per request (from /proc), and with GCLOG its allocation and
// promotion per request (V8's --trace-gc-nvp). How changes 12–17 of docs/performance-history.md were
// judged when the machine's load made throughput alone meaningless. Not part of `npm run bench`.
//   cp -r dist dist-old; (change, npm run build)
//   HB_CLIS=$PWD/dist-old/server/cli.js,$PWD/dist/server/cli.js npx tsx bench/get-ab.ts
// Environment: OP (get | list | update | create; get), SIZE (10000), ROUNDS (3),
// DUR (seconds per run, 5), HB_NODE_ARGS / BARE_NODE_ARGS (extra node flags, e.g. --cpu-prof),
// GCLOG=/tmp/gc (with HB_NODE_ARGS=--trace-gc-nvp), HEAPSIG=1 (sends SIGUSR2 around the measured
// rounds, for bench/heap-survivors.mjs), PIN=1 (servers on that CPU), QUIET=1 (serve --quiet).
import { readFileSync, cpSync, rmSync, appendFileSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { generatePeople, sampleIds } from './lib/data.js';
import { prepareHomebase, writeRecords, startBareExpress, startHomebase, removeHomebaseData, recordsPath, homebaseCli } from './lib/targets.js';
import type { Target } from './lib/proc.js';
import { operation } from './lib/operations.js';

const size = Number(process.env.SIZE ?? 10000);
const rounds = Number(process.env.ROUNDS ?? 3);
const dur = Number(process.env.DUR ?? 5);
const op = process.env.OP ?? 'get';
function ticks(pid: number) { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]); }
async function run(t: Target, o: ReturnType<typeof operation>, seconds: number) {
  const pid = t.child.pid!;
  const t0 = ticks(pid);
  const r = await autocannon({ url: t.origin, connections: 10, duration: seconds, requests: [{ method: o.method, headers: { ...o.headers, ...(o.method !== 'GET' ? { 'content-type': 'application/json' } : {}) }, setupRequest: (req) => { const n = o.next(); return { ...req, path: n.path, ...(n.body ? { body: n.body } : {}) } as typeof req; } }] });
  const t1 = ticks(pid);
  await new Promise((res) => setTimeout(res, 300));
  return { rps: r['2xx'] / r.duration, us: ((t1 - t0) * 10_000) / Math.max(1, r['2xx']), err: r.non2xx + r.errors };
}
const hbData = await prepareHomebase();
const people = generatePeople(size);
const ids = sampleIds(people);
await writeRecords(hbData, people);
const clis = (process.env.HB_CLIS ?? homebaseCli).split(',');
const targets: Array<{ name: string; t: Target; o: ReturnType<typeof operation> }> = [];
const under = process.env.PIN ? ['taskset', '-c', process.env.PIN] : undefined;
const words = (v: string | undefined) => (v ?? '').split(' ').filter(Boolean);
targets.push({ name: 'bare', t: await startBareExpress({ under, nodeArgs: words(process.env.BARE_NODE_ARGS) }), o: operation(op as 'get', { kind: 'bare', base: '/people', ids }) });
for (const [i, cli] of clis.entries()) {
  const dir = `${hbData.dir}-${i}`; // a data folder per build (each server locks its own)
  cpSync(hbData.dir, dir, { recursive: true });
  const t = await startHomebase({ ...hbData, dir }, undefined, { under, nodeArgs: words(process.env.HB_NODE_ARGS), cli, serveArgs: process.env.QUIET ? ['--quiet'] : [] });
  if (process.env.GCLOG) { const f = `${process.env.GCLOG}-${i}.log`; writeFileSync(f, ''); t.child.stdout?.on('data', (b: Buffer) => appendFileSync(f, b)); }
  targets.push({ name: cli.replace(/.*\/(dist[^/]*)\/.*/, '$1'), t, o: operation(op as 'get', { kind: 'homebase', base: recordsPath, ids, token: hbData.token }) });
}
const sums = targets.map(() => ({ rps: [] as number[], us: [] as number[], requests: 0 }));
const gcLines = (j: number) => (process.env.GCLOG && j > 0 ? readFileSync(`${process.env.GCLOG}-${j - 1}.log`, 'utf8').split('\n').filter((l) => l.includes('gc=s')) : []);
let gcStart: number[] = [];
try {
  for (const x of targets) await run(x.t, x.o, 2);
  gcStart = targets.map((_, j) => gcLines(j).length);
  if (process.env.HEAPSIG) for (const x of targets) x.t.child.kill('SIGUSR2');
  for (let i = 0; i < rounds; i++) {
    const line: string[] = [];
    let bareRps = 0;
    for (const [j, x] of targets.entries()) {
      const r = await run(x.t, x.o, dur);
      if (j === 0) bareRps = r.rps;
      sums[j].rps.push(r.rps); sums[j].us.push(r.us); sums[j].requests += r.rps * dur;
      line.push(`${x.name} ${r.rps.toFixed(0)}/s ${r.us.toFixed(0)}µs${j ? ` ${(r.rps / bareRps).toFixed(2)}×` : ''}${r.err ? ` err ${r.err}` : ''}`);
    }
    console.log(`${op} @${size} r${i}: ${line.join(' | ')}`);
  }
  if (process.env.HEAPSIG) { for (const x of targets) x.t.child.kill('SIGUSR2'); await new Promise((r) => setTimeout(r, 1500)); }
  if (process.env.GCLOG) for (let j = 1; j < targets.length; j++) {
    const lines = gcLines(j).slice(gcStart[j]);
    const sum = (re: RegExp) => lines.reduce((n, l) => n + Number(re.exec(l)?.[1] ?? 0), 0);
    console.log(`${targets[j].name}: ${lines.length} scavenges, ${(sum(/allocated=(\d+)/) / sums[j].requests / 1024).toFixed(1)} KB allocated and ${(sum(/promoted=(\d+)/) / sums[j].requests / 1024).toFixed(1)} KB promoted per request`);
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
  console.log(`median: ${targets.map((x, j) => `${x.name} ${med(sums[j].rps).toFixed(0)}/s ${med(sums[j].us).toFixed(0)}µs`).join(' | ')}`);
} finally { for (const x of targets) await x.t.stop(); await removeHomebaseData(hbData); for (let i = 0; i < clis.length; i++) rmSync(`${hbData.dir}-${i}`, { recursive: true, force: true }); }
