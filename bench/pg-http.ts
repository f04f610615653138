// The HTTP benchmark on PostgreSQL (`npm run bench:pg`): the operations of `npm run bench` (GET
// by id, the filtered + sorted list of 50 with and without an index on the sort field, partial
// update, create) against Homebase started with `--database` on a throwaway cluster (fsync on),
// at 100,000 and 1,000,000 records, with the Homebase process's RSS as the records grow. The
// records are written straight into the collections' tables (multi-row INSERTs with the indexes
// dropped and rebuilt after, as a restore of a dump would), not over HTTP. At the sizes up to
// --embedded-max (100,000 by default) the embedded Homebase runs beside it over the same records,
// measured in interleaved rounds, so that the two drivers are compared under the same load.
// Run: `npm run bench:pg -- [--sizes 100000,1000000] [--embedded-max 100000] [--duration 5]
//   [--repeats 3] [--warmup 2] [--connections 10] [--no-build] [--source]`
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { build, machineInfo } from './lib/suite.js';
import { streamPeople, type Person } from './lib/data.js';
import { measure, measureInterleaved, median, type Figure, type LoadOptions, type Operation } from './lib/load.js';
import { OPS, OP_LABELS, operation, type OpName } from './lib/operations.js';
import { rssMb, probeOnce, type Target } from './lib/proc.js';
import { COLLECTION, UNINDEXED_COLLECTION, prepareHomebase, recordsPath, removeHomebaseData, startHomebase, unindexedRecordsPath,
  writeRecords, type HomebaseData } from './lib/targets.js';
import { startPgCluster } from '../server/test/pg-cluster.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string' }, 'embedded-max': { type: 'string' }, duration: { type: 'string' }, repeats: { type: 'string' },
    warmup: { type: 'string' }, connections: { type: 'string' }, 'no-build': { type: 'boolean' }, source: { type: 'boolean' },
  },
});
const sizes = (values.sizes ?? process.env.BENCH_PG_SIZES ?? '100000,1000000').split(',').map(Number).sort((a, b) => a - b);
const embeddedMax = Number(values['embedded-max'] ?? 100_000);
const load: LoadOptions = {
  connections: Number(values.connections ?? 10), warmup: Number(values.warmup ?? 2),
  duration: Number(values.duration ?? 5), repeats: Number(values.repeats ?? 3),
};
const source = !!values.source;
const log = (s: string) => process.stderr.write(`[bench:pg] ${s}\n`);
const la = () => loadavg().map((x) => x.toFixed(1)).join(' / ');
const int = (x: number) => Math.round(x).toLocaleString('en');
/** One request alone slower than this: the throughput run is skipped (without the embedded peer). */
const SLOW_MS = 2000;
const fig = (f: Figure | undefined) => f ? `${int(f.median)} (${int(f.min)}–${int(f.max)})` : '';

/** Writes people [from, to) of the seeded stream into both collections' tables, with their
 *  indexes (but the primary key) dropped and built again after; resolves to every 100th id. */
async function loadRecords(url: string, stream: Iterator<Person>, count: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const ids: string[] = [];
  try {
    const tables = (await client.query<{ name: string; table_name: string }>(
      `SELECT name, table_name FROM homebase_stores WHERE workspace = 'demo' AND name = ANY($1)`,
      [[`collections/${COLLECTION}`, `collections/${UNINDEXED_COLLECTION}`]])).rows.map((r) => r.table_name);
    if (tables.length !== 2) throw new Error(`expected the two collections' tables, found ${tables.length}`);
    const defs = (await client.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ANY($1) AND indexname NOT LIKE '%_pkey'`, [tables])).rows;
    await client.query('BEGIN');
    for (const d of defs) await client.query(`DROP INDEX ${d.indexname}`);
    const BATCH = 5000;
    for (let done = 0; done < count;) {
      const batch: Person[] = [];
      while (batch.length < BATCH && done + batch.length < count) batch.push(stream.next().value as Person);
      for (const [i, p] of batch.entries()) if ((done + i) % 100 === 0) ids.push(p._id);
      const json = JSON.stringify(batch);
      for (const t of tables) await client.query(`INSERT INTO ${t} (id, doc) SELECT d ->> '_id', d FROM jsonb_array_elements($1::jsonb) AS x(d)`, [json]);
      done += batch.length;
      if (done % 100_000 === 0) log(`  ${int(done)} / ${int(count)} written (load average ${la()})`);
    }
    for (const d of defs) await client.query(d.indexdef);
    await client.query('COMMIT');
    for (const t of tables) await client.query(`ANALYZE ${t}`);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
  return ids;
}

/** Milliseconds one request of `op` takes alone (median of `n`, one after another): what a
 *  client waits when nothing else runs, and a figure even where the throughput rounds to 0. */
async function alone(origin: string, op: Operation, n = 3): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const { path, body } = op.next();
    const t0 = performance.now();
    const res = await fetch(origin + path, { method: op.method, headers: { ...op.headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body });
    await res.arrayBuffer();
    if (res.status >= 300) throw new Error(`${op.method} ${path} answered ${res.status}`);
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function firstPage(t: Target, token: string): Promise<void> {
  const status = await probeOnce(t.origin, { path: `${recordsPath}?limit=1`, headers: { authorization: `Bearer ${token}` } });
  if (status !== 200) throw new Error(`first page answered ${status}`);
}

interface Row { size: number; loadS: number; rssStart?: number; rssEnd?: number; embeddedRss?: [number?, number?]; ops: Partial<Record<OpName, { pg?: Figure; embedded?: Figure; pgMs: number; embeddedMs?: number }>> }

async function main(): Promise<void> {
  const machine = machineInfo();
  if (!values['no-build'] && !source) build(log);
  log(`load average at the start: ${la()}`);
  const cluster = await startPgCluster({ durable: true });
  let hb: HomebaseData | undefined;
  let embedded: HomebaseData | undefined;
  const rows: Row[] = [];
  try {
    const url = await cluster.createDatabase('bench');
    hb = await prepareHomebase(source, url);
    if (sizes.some((s) => s <= embeddedMax)) embedded = await prepareHomebase(source);
    const stream = streamPeople();
    const allIds: string[] = [];
    let loaded = 0;
    const kept: Person[] = []; // the embedded Homebase's records (up to embeddedMax)
    for (const size of sizes) {
      log(`loading ${int(size - loaded)} records into PostgreSQL (to ${int(size)})`);
      const t0 = performance.now();
      const tee: Iterator<Person> = {
        next: () => { const r = stream.next(); if (kept.length < embeddedMax) kept.push(r.value as Person); return r; },
      };
      allIds.push(...await loadRecords(url, tee, size - loaded));
      const loadS = (performance.now() - t0) / 1000;
      loaded = size;
      log(`loaded in ${loadS.toFixed(1)} s (load average ${la()})`);
      const ids = allIds.filter((_, i) => i % Math.max(1, Math.floor(allIds.length / 10_000)) === 0);
      const row: Row = { size, loadS, ops: {} };
      rows.push(row);

      const withEmbedded = embedded && size <= embeddedMax;
      if (withEmbedded) await writeRecords(embedded!, kept.slice(0, size) as Person[]);
      const t = await startHomebase(hb);
      const e = withEmbedded ? await startHomebase(embedded!) : undefined;
      try {
        await firstPage(t, hb.token);
        if (e) await firstPage(e, embedded!.token); // the embedded driver loads a collection on first use
        row.rssStart = rssMb(t.child.pid);
        if (e) row.embeddedRss = [rssMb(e.child.pid)];
        log(`@ ${int(size)}: Homebase on PostgreSQL RSS ${row.rssStart?.toFixed(0)} MB after the first page${e ? `, embedded ${row.embeddedRss![0]?.toFixed(0)} MB` : ''}`);
        for (const op of OPS) {
          log(`@ ${int(size)}: ${op} (load average ${la()})`);
          const mk = (token: string) => operation(op, { kind: 'homebase', base: recordsPath, unindexedBase: unindexedRecordsPath, ids, token });
          const pgMs = await alone(t.origin, mk(hb.token));
          const embeddedMs = e ? await alone(e.origin, mk(embedded!.token)) : undefined;
          if (!e && pgMs > SLOW_MS) {
            // Ten of these at once would still be running when the next operation is measured.
            log(`   one request alone takes ${pgMs.toFixed(0)} ms: no throughput run`);
            row.ops[op] = { pgMs };
            continue;
          }
          if (e) {
            const [p, m] = await measureInterleaved([{ origin: t.origin, pid: t.child.pid, op: mk(hb.token) }, { origin: e.origin, pid: e.child.pid, op: mk(embedded!.token) }], load);
            row.ops[op] = { pg: p, embedded: m, pgMs, embeddedMs };
          } else {
            row.ops[op] = { pg: await measure(t.origin, mk(hb.token), load), pgMs };
          }
          const f = row.ops[op]!;
          log(`   PostgreSQL ${fig(f.pg)} req/s (p50 ${f.pg?.p50} ms, alone ${pgMs.toFixed(1)} ms)${f.embedded ? `, embedded ${fig(f.embedded)} req/s (alone ${embeddedMs!.toFixed(1)} ms)` : ''}; errors ${f.pg?.errors}${f.embedded ? ` / ${f.embedded.errors}` : ''}`);
        }
        row.rssEnd = rssMb(t.child.pid);
        if (e) row.embeddedRss!.push(rssMb(e.child.pid));
      } finally {
        await t.stop();
        await e?.stop();
      }
      // What create added is left in the tables; the next size loads on top of it.
    }
  } finally {
    if (hb) await removeHomebaseData(hb);
    if (embedded) await removeHomebaseData(embedded);
    cluster.stop();
  }

  const out: string[] = [];
  out.push('| Measure | Records | Homebase on PostgreSQL | Homebase embedded | PG / embedded |');
  out.push('| --- | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    out.push(`| load straight into the tables (s) | ${int(r.size)} | ${r.loadS.toFixed(1)} |  |  |`);
    out.push(`| RSS after the first page (MB) | ${int(r.size)} | ${r.rssStart?.toFixed(0) ?? ''} | ${r.embeddedRss?.[0]?.toFixed(0) ?? ''} |  |`);
    for (const op of OPS) {
      const f = r.ops[op];
      if (!f) continue;
      const ratio = f.embedded && f.pg ? `${(f.pg.median / f.embedded.median).toFixed(2)}×` : '';
      out.push(`| ${OP_LABELS[op]} (req/s) | ${int(r.size)} | ${f.pg ? fig(f.pg) : 'not run (one request alone too slow)'} | ${fig(f.embedded)} | ${ratio} |`);
      out.push(`| ${OP_LABELS[op]}, one request alone (ms) | ${int(r.size)} | ${f.pgMs.toFixed(1)} | ${f.embeddedMs?.toFixed(1) ?? ''} |  |`);
    }
    out.push(`| RSS after the runs (MB) | ${int(r.size)} | ${r.rssEnd?.toFixed(0) ?? ''} | ${r.embeddedRss?.[1]?.toFixed(0) ?? ''} |  |`);
  }
  out.push('');
  out.push(`Machine: ${machine.cpu}, ${machine.nproc} cores, Node ${machine.node}, ${machine.date}; load average ${machine.loadAvg?.map((x) => x.toFixed(1)).join(' / ')} at the start, ${la()} at the end (1 / 5 / 15 min).`);
  out.push(`Settings: ${load.connections} connections, ${load.warmup} s warm-up, ${load.repeats} × ${load.duration} s runs per figure (median, min–max; a figure of 0 means no request finished within a run); one request alone: median of 3 in a row; a throwaway PostgreSQL 15 cluster with fsync on; a signed-in user's token.`);
  process.stdout.write(out.join('\n') + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:pg: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
