// The longest event-loop stall one list request can still cause: a server with SIZE records
// (100,000 by default) is sent the costliest list requests we know of, one at a time, while a
// probe asks `/api/health` every 2 ms (one request in flight at a time). For each request the
// table shows its status and time, and the longest health answer seen while it ran (what every
// other client waited at worst), and the longest event-loop delay the server measured itself
// meanwhile (monitorEventLoopDelay, preloaded from bench/lib/loop-delay.mjs). The server accepts 64 KiB of headers here (Node's default is
// 16 KiB), so that the limits, not the header size, refuse the largest requests. Not part of
// `npm run bench`.
//   npx tsx bench/list-stall.ts            (the build: npm run build first)
//   SOURCE=1 npx tsx bench/list-stall.ts   (from the TypeScript sources)
// Environment: SIZE (100000), REPEATS (3 per request), ONLY (a substring of the names to run).
import http from 'node:http';
import { join } from 'node:path';
import { generatePeople } from './lib/data.js';
import { prepareHomebase, writeRecords, startHomebase, removeHomebaseData, recordsPath } from './lib/targets.js';

const size = Number(process.env.SIZE ?? 100_000);
const repeats = Number(process.env.REPEATS ?? 3);
const source = !!process.env.SOURCE;

const keys = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(',');
const conds = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join('&');

/** name → query string (after `?`). The first group is refused with 400 once the list language
 *  is bounded; the rest are valid requests whose cost grows with the data. */
export const WORST: Array<[string, string]> = [
  ['7,000 sort keys', `sort=${keys(7000, (i) => `k${i}`)}&limit=50`],
  ['7,000 $in values, unindexed field', `filter[name][$in]=${keys(7000, (i) => `n${i}`)}&limit=50`],
  ['7,000 $nin values', `filter[city][$nin]=${keys(7000, (i) => `c${i}`)}&limit=50`],
  ['1,000 filter fields', `${conds(1000, (i) => `filter[f${i}][$exists]=false`)}&limit=50`],
  ['3,000 fields= entries', `fields=${keys(3000, (i) => `f${i}`)}&limit=100`],
  ['a 3,000-segment dot path sort', `sort=${keys(3000, () => 'a').replace(/,/g, '.')}&limit=50`],
  ['8 sort keys, all ties', `sort=active,role,city,k1,k2,k3,k4,k5&limit=50`],
  ['unindexed sort', 'sort=name&limit=50'],
  ['unindexed sort, descending, 2 keys', 'sort=-email,name&limit=100'],
  ['unindexed sort, deepest page', `sort=name&offset=${size - 50}&limit=50`],
  ['indexed sort, deepest page', `sort=age&offset=${size - 50}&limit=50`],
  ['default order, deepest page', `offset=${size - 50}&limit=50`],
  ['$contains scan, no match', 'filter[name][$contains]=zzzz&limit=50'],
  ['$contains on 20 fields, all match', `${conds(20, (i) => `filter[${['name', 'email', 'city', 'role', '_id', 'createdAt', 'updatedAt'][i % 7]}${i >= 7 ? `.x${i}` : ''}][$${i >= 7 ? 'exists' : 'contains'}]=${i >= 7 ? 'false' : 'a'}`)}&sort=name&limit=50`],
  ['$startsWith, unindexed sort', 'filter[email][$startsWith]=a&sort=-name&limit=50'],
  ['date range on createdAt', 'filter[createdAt][$gte]=2024-01-01&limit=50'],
  ['date range, unindexed sort', 'filter[updatedAt][$gte]=2024-01-01T00:00:00Z&sort=-name&limit=50'],
  ['range on an indexed field, limit=0', 'filter[age][$gte]=20&limit=0'],
  ['$ne count, limit=0', 'filter[city][$ne]=Oslo&filter[score][$lt]=99&limit=0'],
  ['100 $in values, unindexed field', `filter[name][$in]=${keys(100, (i) => `Ada ${i * 10}`)}&sort=-score&limit=50`],
  ['100 $nin values + unindexed sort', `filter[name][$nin]=${keys(100, (i) => `Ada ${i * 10}`)}&sort=-score&limit=50`],
  ['long $contains needle', `filter[name][$contains]=${'a'.repeat(1000)}&sort=name&limit=50`],
];

function get(origin: string, path: string, token?: string): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.get(`${origin}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - t0 }));
  });
}

const hb = await prepareHomebase(source);
await writeRecords(hb, generatePeople(size));
const target = await startHomebase(hb, undefined, { nodeArgs: ['--max-http-header-size=65536', '--import', join(import.meta.dirname, 'lib', 'loop-delay.mjs')] });
let lines: Array<(ms: number) => void> = [];
let pending = '';
target.child.stdout?.on('data', (b: Buffer) => {
  pending += b.toString();
  for (let i = pending.indexOf('\n'); i !== -1; i = pending.indexOf('\n')) {
    const m = /^loop-delay-max ([\d.]+)/.exec(pending.slice(0, i));
    pending = pending.slice(i + 1);
    if (m) { const wake = lines; lines = []; for (const w of wake) w(Number(m[1])); }
  }
});
/** The server's longest event-loop delay since the last call. */
const loopDelay = () => new Promise<number>((resolve) => { lines.push(resolve); target.child.kill('SIGWINCH'); });
try {
  // Warm up: the collection's deferred indexes and the code paths.
  for (let i = 0; i < 5; i++) await get(target.origin, `${recordsPath}?sort=-age&limit=50&offset=${i}`, hb.token);
  await new Promise((r) => setTimeout(r, 500));
  let probing = false;
  let worst = 0;
  const probe = async () => {
    while (probing) {
      const r = await get(target.origin, '/api/health');
      if (r.ms > worst) worst = r.ms;
      await new Promise((res) => setTimeout(res, 2));
    }
  };
  // Baseline: the probe alone.
  probing = true; worst = 0;
  const idle = probe();
  await new Promise((r) => setTimeout(r, 1000));
  probing = false; await idle;
  console.log(`${size.toLocaleString('en-US')} records; health probe alone: longest ${worst.toFixed(1)} ms`);
  console.log('| request | status | request ms (median) | longest /api/health ms while it ran (max) | longest event-loop delay in the server, ms (max) |');
  console.log('|---|---:|---:|---:|---:|');
  let overall = 0;
  let overallLoop = 0;
  for (const [name, query] of WORST) {
    if (process.env.ONLY && !name.includes(process.env.ONLY)) continue;
    const times: number[] = [];
    let status = 0;
    let longest = 0;
    let loop = 0;
    for (let i = 0; i < repeats; i++) {
      await loopDelay();
      worst = 0; probing = true;
      const p = probe();
      await new Promise((r) => setTimeout(r, 20));
      // A fresh query each time (the answer memo would serve a repeat): the limit varies by one.
      const r = await get(target.origin, `${recordsPath}?${query.replace(/limit=(\d+)/, (_, n: string) => (n === '0' ? `limit=0&offset=${i}` : `limit=${Number(n) - i}`))}`, hb.token);
      await new Promise((res) => setTimeout(res, 20));
      probing = false; await p;
      status = r.status; times.push(r.ms);
      longest = Math.max(longest, worst);
      loop = Math.max(loop, await loopDelay());
    }
    times.sort((a, b) => a - b);
    overall = Math.max(overall, longest);
    overallLoop = Math.max(overallLoop, loop);
    console.log(`| ${name} | ${status} | ${times[times.length >> 1].toFixed(1)} | ${longest.toFixed(1)} | ${loop.toFixed(1)} |`);
  }
  console.log(`\nlongest /api/health answer during any request: ${overall.toFixed(1)} ms; longest event-loop delay in the server: ${overallLoop.toFixed(1)} ms`);
  console.log(`load average at the end: ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' / ')}`);
} finally {
  await target.stop();
  await removeHomebaseData(hb);
}
