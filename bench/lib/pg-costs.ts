// What each request costs on PostgreSQL, counted over one bounded run of an operation (for
// `npm run bench:pg -- --costs`): statements and their time as PostgreSQL saw them
// (pg_stat_statements, every statement including those inside functions), commits, WAL records,
// bytes and flushes (pg_stat_wal: the flushes are the fsyncs a write waits for, several commits
// sharing one when they arrive together), and the CPU of the Homebase process and of every
// PostgreSQL process of the cluster (/proc), each divided by the requests answered 2xx.
import autocannon from 'autocannon';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Operation } from './load.js';

/** Server settings a cluster needs for `costOf` (pg_stat_statements loaded at start). */
export const COST_SETTINGS = ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all', 'pg_stat_statements.max=10000'];

export interface Costs {
  requests: number;
  errors: number;
  seconds: number;
  /** Per request answered 2xx (transactions: every statement outside BEGIN/COMMIT is one; only
   *  those that wrote wait for the disk, in the WAL flushes). */
  statements: number;
  commits: number;
  walRecords: number;
  walBytes: number;
  walFlushes: number;
  /** Milliseconds of CPU per request: the Homebase process, every PostgreSQL process, and the
   *  statements' execution time as PostgreSQL counted it. */
  nodeCpuMs: number;
  pgCpuMs: number;
  pgExecMs: number;
  /** The statements run most often, calls per request (normalised text, shortened). */
  top: Array<{ perRequest: number; query: string }>;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

function ticks(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0; // a backend that ended meanwhile
  }
}

/** The postmaster and its children (backends, WAL writer, checkpointer, ...). */
function clusterPids(postmaster: number): number[] {
  const pids = [postmaster];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (ppid === postmaster) pids.push(Number(name));
    } catch { /* gone */ }
  }
  return pids;
}

/** CPU ticks of the cluster: processes that ended during the run are missed, so the pool's
 *  connections (kept open) are the ones counted. */
const clusterTicks = (postmaster: number) => clusterPids(postmaster).reduce((n, p) => n + ticks(p), 0);

export async function enableCosts(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try { await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements'); } finally { await c.end(); }
}

/** Runs `op` against `origin` with `connections` for `seconds` and divides what it cost. */
export async function costOf(url: string, origin: string, nodePid: number, op: Operation, connections: number, seconds: number): Promise<Costs> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const dataDir = (await c.query<{ d: string }>("SELECT current_setting('data_directory') AS d")).rows[0].d;
    const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const db = (await c.query<{ d: string }>('SELECT current_database() AS d')).rows[0].d;
    const stat = async () => (await c.query<{ commits: string; wal_records: string; wal_bytes: string; wal_sync: string }>(
      `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = $1) AS commits, wal_records, wal_bytes, wal_sync FROM pg_stat_wal`, [db])).rows[0];
    await c.query('SELECT pg_stat_statements_reset()');
    await c.query('SELECT pg_stat_clear_snapshot()');
    const before = await stat();
    const node0 = ticks(nodePid);
    const pg0 = clusterTicks(postmaster);
    const headers = { ...(op.headers ?? {}), ...(op.method !== 'GET' ? { 'content-type': 'application/json' } : {}) };
    const result = await autocannon({
      url: origin, connections, duration: seconds, timeout: 30,
      requests: [{ method: op.method, headers, setupRequest: (req) => { const { path, body } = op.next(); return { ...req, path, ...(body !== undefined ? { body } : {}) } as typeof req; } }],
    });
    // What the requests set going after their answers (deliveries, outbox deletes) belongs to them.
    await new Promise((r) => setTimeout(r, 500));
    const node1 = ticks(nodePid);
    const pg1 = clusterTicks(postmaster);
    await c.query('SELECT pg_stat_clear_snapshot()');
    const after = await stat();
    const own = (await c.query<{ query: string; calls: string; ms: number }>(
      `SELECT query, calls, total_exec_time AS ms FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1
         AND query NOT LIKE '%pg_stat_%' ORDER BY calls DESC`, [db])).rows;
    const n = Math.max(1, result['2xx']);
    const calls = own.reduce((s, r) => s + Number(r.calls), 0);
    const d = (k: keyof typeof before) => (Number(after[k]) - Number(before[k])) / n;
    return {
      requests: result['2xx'], errors: result.non2xx + result.errors + result.timeouts, seconds: result.duration,
      statements: calls / n,
      // The probe's own reads commit too: two transactions, left out.
      commits: (Number(after.commits) - Number(before.commits) - 2) / n,
      walRecords: d('wal_records'), walBytes: d('wal_bytes'), walFlushes: d('wal_sync'),
      nodeCpuMs: ((node1 - node0) * TICK_MS) / n,
      pgCpuMs: ((pg1 - pg0) * TICK_MS) / n,
      pgExecMs: own.reduce((s, r) => s + r.ms, 0) / n,
      top: own.slice(0, 8).map((r) => ({ perRequest: Number(r.calls) / n, query: r.query.replace(/\s+/g, ' ').slice(0, 140) })),
    };
  } finally {
    await c.end();
  }
}

export function costsText(label: string, k: Costs): string {
  const f = (x: number, d = 2) => x.toFixed(d);
  const lines = [
    `${label}: ${k.requests} requests in ${k.seconds} s (${f(k.requests / k.seconds, 0)}/s, ${k.errors} errors); per request: `
      + `${f(k.statements)} statements, ${f(k.commits)} transactions, WAL ${f(k.walRecords, 1)} records / ${f(k.walBytes, 0)} bytes / ${f(k.walFlushes)} flushes; `
      + `CPU Homebase ${f(k.nodeCpuMs)} ms, PostgreSQL ${f(k.pgCpuMs)} ms (statements' own time ${f(k.pgExecMs)} ms)`,
    ...k.top.map((t) => `    ${f(t.perRequest)} × ${t.query}`),
  ];
  return lines.join('\n');
}
