// A/B of Homebase builds on the start with a big collection, as `npm run bench` times it: spawn →
// first answer (`/api/health`, polled every 3 ms), then at once the first page of records
// (`?limit=1` with a user's token), and the resident memory right after that page. The builds
// take turns, start after start, so a machine whose load changes moves each of them alike; each
// build has its own copy of the data folder. Not part of `npm run bench`.
//   npx tsx bench/start-ab.ts                       (this checkout's build)
//   HB_CLIS="/other/dist/server/cli.js,$PWD/dist/server/bundle/cli.js" npx tsx bench/start-ab.ts
// A build may carry environment settings and node flags after `;`:
//   HB_CLIS="$PWD/dist/server/bundle/cli.js;HOMEBASE_HEAP_GROWING_PERCENT=0;--max-semi-space-size=64"
// Environment: SIZE (100000), RUNS (starts per build, 5).
import { cpSync, rmSync } from 'node:fs';
import { generatePeople } from './lib/data.js';
import { prepareHomebase, writeRecords, startHomebase, removeHomebaseData, recordsPath, homebaseCli } from './lib/targets.js';
import { mainThreadCpuMs, probeOnce, rssMb } from './lib/proc.js';

const size = Number(process.env.SIZE ?? 100_000);
const runs = Number(process.env.RUNS ?? 5);
const builds = (process.env.HB_CLIS ?? homebaseCli).split(',').map((spec, i) => {
  const [cli, ...rest] = spec.split(';');
  const env = Object.fromEntries(rest.filter((r) => !r.startsWith('--')).map((r) => [r.slice(0, r.indexOf('=')), r.slice(r.indexOf('=') + 1)]));
  return { label: `${i}: ${spec}`, cli, env, nodeArgs: rest.filter((r) => r.startsWith('--')) };
});
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

const data = await prepareHomebase();
await writeRecords(data, generatePeople(size));
const dirs = builds.map((_, i) => { const dir = `${data.dir}-${i}`; cpSync(data.dir, dir, { recursive: true }); return dir; });

async function startOnce(i: number) {
  const b = builds[i];
  const saved = { ...process.env };
  Object.assign(process.env, b.env); // the spawn copies process.env
  const first = await startHomebase({ ...data, dir: dirs[i] }, '/api/health', { cli: b.cli, nodeArgs: b.nodeArgs })
    .finally(() => { for (const k of Object.keys(b.env)) { if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k]; } });
  try {
    const cpuAtAnswer = mainThreadCpuMs(first.child.pid) ?? 0;
    const asked = performance.now();
    const status = await probeOnce(first.origin, { path: `${recordsPath}?limit=1`, headers: { authorization: `Bearer ${data.token}` } });
    const page = performance.now() - asked;
    if (status !== 200) throw new Error(`${b.label}: first page answered ${status}`);
    return { answer: first.startMs, page, cpu: (mainThreadCpuMs(first.child.pid) ?? 0) - cpuAtAnswer, cpuAtAnswer, rss: rssMb(first.child.pid) ?? 0 };
  } finally {
    await first.stop();
  }
}

const results = builds.map(() => [] as Array<{ answer: number; page: number; cpu: number; cpuAtAnswer: number; rss: number }>);
try {
  for (let i = 0; i < builds.length; i++) await startOnce(i); // untimed: disk cache, compile caches
  for (let r = 0; r < runs; r++) {
    for (let i = 0; i < builds.length; i++) {
      const x = await startOnce(i);
      results[i].push(x);
      process.stderr.write(`run ${r + 1} ${builds[i].label}: answer ${x.answer.toFixed(0)} ms, page +${x.page.toFixed(0)} ms, main thread CPU to the answer ${x.cpuAtAnswer.toFixed(0)} ms, answer to page ${x.cpu.toFixed(0)} ms, RSS ${x.rss.toFixed(0)} MB\n`);
    }
  }
} finally {
  await removeHomebaseData(data);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
for (const [i, b] of builds.entries()) {
  const xs = results[i];
  process.stdout.write(`${b.label}\n  first answer ${median(xs.map((x) => x.answer)).toFixed(0)} ms, first page +${median(xs.map((x) => x.page)).toFixed(0)} ms (${xs.map((x) => `+${x.page.toFixed(0)}`).join(', ')}), main thread CPU to the answer ${median(xs.map((x) => x.cpuAtAnswer)).toFixed(0)} ms and from it to the page ${median(xs.map((x) => x.cpu)).toFixed(0)} ms, RSS after the page ${median(xs.map((x) => x.rss)).toFixed(0)} MB\n`);
}
