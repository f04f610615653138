// A/B of Homebase builds on PostgreSQL for one operation (GET by id by default), with the
// embedded driver beside them in the same interleaved rounds: req/s, and per request the CPU of
// the Homebase process and of PostgreSQL (every server process of the cluster, from /proc: the
// backends serving Homebase's connections and the background ones) and the statements it sent
// (transactions committed in its database, pg_stat_database.xact_commit: a statement outside a
// transaction is one). How the changes to PostgreSQL reads by id were judged on a loaded machine,
// where throughput alone moves with the load and CPU per request does not. Not part of
// `npm run bench:pg`.
//   cp -r dist dist-old; (change, npm run build)
//   HB_CLIS=$PWD/dist-old/server/bundle/cli.js,$PWD/dist/server/bundle/cli.js npx tsx bench/pg-get-ab.ts
// Environment: OP (get | list | update | create; get), SIZE (records, 100000), ROUNDS (3), DUR
// (seconds per run, 5), CONNS (10), SOCKET=1 (each build also connected over the cluster's unix
// socket instead of TCP), EMBEDDED=0 (no embedded peer), HB_NODE_ARGS (extra node flags), HOLD=1
// (before the rounds, the servers stay up, their addresses printed, until SIGINT: for perf).
import { cpSync, readFileSync, rmSync } from 'node:fs';
import autocannon from 'autocannon';
import pg from 'pg';
import { generatePeople, sampleIds } from './lib/data.js';
import { homebaseCli, prepareHomebase, recordsPath, removeHomebaseData, startHomebase, unindexedRecordsPath, writeRecords, COLLECTION, UNINDEXED_COLLECTION } from './lib/targets.js';
import type { Target } from './lib/proc.js';
import { operation, type OpName } from './lib/operations.js';
import { startPgCluster } from '../server/test/pg-cluster.js';

const size = Number(process.env.SIZE ?? 100_000);
const rounds = Number(process.env.ROUNDS ?? 3);
const dur = Number(process.env.DUR ?? 5);
const conns = Number(process.env.CONNS ?? 10);
const op = (process.env.OP ?? 'get') as OpName;
const words = (v: string | undefined) => (v ?? '').split(' ').filter(Boolean);
const log = (s: string) => process.stderr.write(`[pg-get-ab] ${s}\n`);

/** User + system CPU of a process in clock ticks (10 ms), 0 when it is gone. */
function ticks(pid: number): number {
  const [u, s] = userSys(pid);
  return u + s;
}

/** User and system CPU of a process in clock ticks, [0, 0] when it is gone. */
function userSys(pid: number): [number, number] {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return [Number(f[11]), Number(f[12])];
  } catch { return [0, 0]; }
}

/** The cluster's server processes: the postmaster (its pid file) and its children. */
function clusterPids(postmaster: number): number[] {
  const out = [postmaster];
  for (const d of readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').trim().split(/\s+/)) if (d) out.push(Number(d));
  return out;
}

const cluster = await startPgCluster({ durable: true });
const url = await cluster.createDatabase('ab');
const dbName = new URL(url).pathname.slice(1);
const monitor = new pg.Client({ connectionString: url });
const embeddedOn = process.env.EMBEDDED !== '0';
let hb: Awaited<ReturnType<typeof prepareHomebase>> | undefined;
let emb: Awaited<ReturnType<typeof prepareHomebase>> | undefined;
const targets: Array<{ name: string; t: Target; o: ReturnType<typeof operation>; pg: boolean; dir?: string }> = [];
try {
  hb = await prepareHomebase(false, url);
  const people = generatePeople(size);
  const ids = sampleIds(people);
  log(`loading ${size} records into PostgreSQL`);
  await monitor.connect();
  const tables = (await monitor.query<{ table_name: string }>(`SELECT table_name FROM homebase_stores WHERE workspace = 'demo' AND name = ANY($1)`,
    [[`collections/${COLLECTION}`, `collections/${UNINDEXED_COLLECTION}`]])).rows.map((r) => r.table_name);
  const defs = (await monitor.query<{ indexname: string; indexdef: string }>(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ANY($1) AND indexname NOT LIKE '%_pkey'`, [tables])).rows;
  for (const d of defs) await monitor.query(`DROP INDEX ${d.indexname}`);
  for (let i = 0; i < people.length; i += 5000) {
    const json = JSON.stringify(people.slice(i, i + 5000));
    for (const t of tables) await monitor.query(`INSERT INTO ${t} (id, doc) SELECT d ->> '_id', d FROM jsonb_array_elements($1::jsonb) AS x(d)`, [json]);
  }
  for (const d of defs) await monitor.query(d.indexdef);
  for (const t of tables) await monitor.query(`ANALYZE ${t}`);
  const postmaster = Number(readFileSync(`${(await monitor.query<{ d: string }>("SELECT current_setting('data_directory') AS d")).rows[0].d}/postmaster.pid`, 'utf8').split('\n')[0]);
  const socketDir = (await monitor.query<{ d: string }>("SELECT current_setting('unix_socket_directories') AS d")).rows[0].d.split(',')[0].trim();
  const socketUrl = `postgres://postgres@localhost:${cluster.port}/${dbName}?host=${encodeURIComponent(socketDir)}`;
  const ctx = (token: string) => ({ kind: 'homebase' as const, base: recordsPath, unindexedBase: unindexedRecordsPath, ids, token });

  if (embeddedOn) {
    emb = await prepareHomebase(false);
    await writeRecords(emb, people);
    targets.push({ name: 'embedded', t: await startHomebase(emb), o: operation(op, ctx(emb.token)), pg: false });
  }
  const clis = (process.env.HB_CLIS ?? homebaseCli).split(',');
  for (const [i, cli] of clis.entries()) {
    const label = cli.replace(/.*\/(dist[^/]*)\/.*/, '$1');
    for (const [kind, database] of [['tcp', url], ...(process.env.SOCKET ? [['sock', socketUrl]] : [])]) {
      const dir = `${hb.dir}-${i}-${kind}`; // a files folder per server
      cpSync(hb.dir, dir, { recursive: true });
      const t = await startHomebase({ ...hb, dir, database }, undefined, { cli, nodeArgs: words(process.env.HB_NODE_ARGS) });
      targets.push({ name: `${label} ${kind}`, t, o: operation(op, ctx(hb.token)), pg: true, dir });
    }
  }

  if (process.env.HOLD) {
    log(`holding (SIGINT to go on): database ${url}, ${targets.map((x) => `${x.name} ${x.t.origin} (pid ${x.t.child.pid})`).join(', ')}, token ${hb.token}, ids e.g. ${ids.slice(0, 3).join(' ')}`);
    await new Promise((resolve) => process.once('SIGINT', resolve));
  }
  const xacts = async () => Number((await monitor.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [dbName])).rows[0].n);
  const pgTicks = () => clusterPids(postmaster).reduce((n, p) => n + ticks(p), 0);
  const run = async (x: (typeof targets)[number], seconds: number) => {
    const n0 = x.pg ? await xacts() : 0;
    const [h0, p0] = [userSys(x.t.child.pid!), pgTicks()];
    const r = await autocannon({ url: x.t.origin, connections: conns, duration: seconds, requests: [{ method: x.o.method, headers: { ...x.o.headers, ...(x.o.method !== 'GET' ? { 'content-type': 'application/json' } : {}) },
      setupRequest: (req) => { const n = x.o.next(); return { ...req, path: n.path, ...(n.body ? { body: n.body } : {}) } as typeof req; } }] });
    const [h1, p1] = [userSys(x.t.child.pid!), pgTicks()];
    const n1 = x.pg ? await xacts() - 1 : 0; // less the monitor's own read of the figure
    const ok = Math.max(1, r['2xx']);
    await new Promise((res) => setTimeout(res, 300));
    return { rps: r['2xx'] / r.duration, node: ((h1[0] + h1[1] - h0[0] - h0[1]) * 10_000) / ok, sys: ((h1[1] - h0[1]) * 10_000) / ok, pg: x.pg ? ((p1 - p0) * 10_000) / ok : 0, st: (n1 - n0) / ok, err: r.non2xx + r.errors };
  };
  const sums = targets.map(() => ({ rps: [] as number[], node: [] as number[], pg: [] as number[], st: [] as number[] }));
  for (const x of targets) await run(x, 2);
  for (let i = 0; i < rounds; i++) {
    const line: string[] = [];
    let embRps = 0;
    for (const [j, x] of targets.entries()) {
      const r = await run(x, dur);
      if (!x.pg) embRps = r.rps;
      sums[j].rps.push(r.rps); sums[j].node.push(r.node); sums[j].pg.push(r.pg); sums[j].st.push(r.st);
      line.push(`${x.name} ${r.rps.toFixed(0)}/s node ${r.node.toFixed(0)}µs (sys ${r.sys.toFixed(0)})${x.pg ? ` pg ${r.pg.toFixed(0)}µs ${r.st.toFixed(2)} st${embRps ? ` ${(r.rps / embRps).toFixed(2)}×` : ''}` : ''}${r.err ? ` err ${r.err}` : ''}`);
    }
    console.log(`${op} @${size} r${i}: ${line.join(' | ')}`);
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
  console.log(`median: ${targets.map((x, j) => `${x.name} ${med(sums[j].rps).toFixed(0)}/s node ${med(sums[j].node).toFixed(0)}µs${x.pg ? ` pg ${med(sums[j].pg).toFixed(0)}µs ${med(sums[j].st).toFixed(2)} st` : ''}`).join(' | ')}`);
} finally {
  for (const x of targets) await x.t.stop();
  await monitor.end().catch(() => undefined);
  for (const x of targets) if (x.dir) rmSync(x.dir, { recursive: true, force: true });
  if (hb) await removeHomebaseData(hb);
  if (emb) await removeHomebaseData(emb);
  cluster.stop();
}
