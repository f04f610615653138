// GraphQL beside REST on one running Homebase: a list of 50 records of a collection with four
// typed fields, asked through POST /v2/app/{app_id}/graphql (every field selected, with total)
// and through GET /v2/app/{app_id}/database/{collection}?limit=50, in interleaved rounds.
// Part of `npm run bench` (skip it with --no-graphql); alone:
//   npx tsx bench/graphql.ts            (the build: npm run build first)
//   SOURCE=1 npx tsx bench/graphql.ts   (from the TypeScript sources)
// Environment: SIZE (records, 1000), DURATION (s per run, 5), REPEATS (3), CONNECTIONS (10).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measureInterleaved, type Figure, type LoadOptions, type Operation } from './lib/load.js';
import { personBody, prng } from './lib/data.js';
import { requestJson } from './lib/proc.js';
import { startHomebase } from './lib/targets.js';

const WS = 'demo';
const COLL = 'contacts';

export interface GraphqlBenchOptions { size?: number; source?: boolean; load?: Partial<LoadOptions>; log?: (s: string) => void }
export interface GraphqlBenchResult { records: number; rest: Figure; graphql: Figure; ratio: number }

export async function benchGraphql(o: GraphqlBenchOptions = {}): Promise<GraphqlBenchResult> {
  const size = Math.max(50, o.size ?? 1000);
  const load: LoadOptions = { connections: 10, warmup: 2, duration: 5, repeats: 3, ...o.load };
  const dir = await mkdtemp(join(tmpdir(), 'hb-bench-gql-'));
  const consoleToken = `hb_console_bench_${Math.random().toString(36).slice(2)}`;
  const data = { dir, consoleToken, token: '', source: o.source ?? false };
  // The v2 rate limit stays on (its cost is counted) but never refuses the load.
  const t = await startHomebase(data, '/api/health', { serveArgs: ['--rate-limit', '1000000000'] });
  try {
    const api = `${t.origin}/api`;
    const minted = await requestJson('POST', `${api}/workspaces/${WS}/token`, {}, consoleToken);
    const admin = minted.body.token as string;
    const app = `${api}/app/${WS}`;
    const made = await requestJson('POST', `${app}/database`, {
      _id: COLL, name: COLL, setting: { read: 'private', write: 'private', update: 'private' },
      fields: [
        { _id: 'name', name: 'Name', type: 'string' }, { _id: 'email', name: 'Email', type: 'email' },
        { _id: 'role', name: 'Role', type: 'string' }, { _id: 'age', name: 'Age', type: 'integer' },
      ],
    }, admin);
    if (made.status !== 201) throw new Error(`collection: ${made.status} ${JSON.stringify(made.body)}`);
    const rand = prng(3);
    for (let i = 0; i < size; i += 100) {
      const ops = Array.from({ length: Math.min(100, size - i) }, (_, k) => {
        const p = personBody(rand, i + k);
        return { method: 'POST', path: `/app/${WS}/database/${COLL}`, body: { name: p.name, email: p.email, role: p.role, age: p.age } };
      });
      const batch = await requestJson('POST', `${api}/v2/batch`, { operations: ops }, admin);
      if (batch.status !== 200) throw new Error(`seeding: ${batch.status} ${JSON.stringify(batch.body).slice(0, 300)}`);
    }
    const headers = { authorization: `Bearer ${admin}` };
    const rest: Operation = { method: 'GET', headers, next: () => ({ path: `/api/v2/app/${WS}/database/${COLL}?limit=50` }) };
    const query = JSON.stringify({ query: `{ ${COLL}(limit: 50) { total data { _id _owner createdAt updatedAt name email role age } pagination { next hasMore } } }` });
    const graphql: Operation = { method: 'POST', headers: { ...headers, accept: 'application/graphql-response+json' }, next: () => ({ path: `/api/v2/app/${WS}/graphql`, body: query }) };
    const check = await fetch(`${t.origin}/api/v2/app/${WS}/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: query });
    const checked = await check.json() as { data?: Record<string, { data: unknown[]; total: number }> };
    if (checked.data?.[COLL]?.data.length !== 50) throw new Error(`GraphQL list: ${JSON.stringify(checked).slice(0, 300)}`);
    o.log?.(`GraphQL vs REST: list of 50 of ${checked.data[COLL].total} records`);
    const [r, g] = await measureInterleaved([
      { origin: t.origin, op: rest, pid: t.child.pid },
      { origin: t.origin, op: graphql, pid: t.child.pid },
    ], load);
    if (r.errors || g.errors) throw new Error(`non-2xx answers: REST ${r.errors}, GraphQL ${g.errors}`);
    return { records: checked.data[COLL].total, rest: r, graphql: g, ratio: g.median / r.median };
  } finally {
    const exited = new Promise((r) => t.child.once('exit', r));
    t.child.kill();
    await exited;
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = await benchGraphql({
    size: Number(process.env.SIZE ?? 1000), source: process.env.SOURCE === '1', log: console.log,
    load: { connections: Number(process.env.CONNECTIONS ?? 10), warmup: 2, duration: Number(process.env.DURATION ?? 5), repeats: Number(process.env.REPEATS ?? 3) },
  });
  const { rest: r, graphql: g } = out;
  console.log(`list of 50, REST v2: ${r.median.toFixed(0)} req/s (runs ${r.runs.map((x) => x.toFixed(0)).join(', ')}; errors ${r.errors})`);
  console.log(`list of 50, GraphQL: ${g.median.toFixed(0)} req/s (runs ${g.runs.map((x) => x.toFixed(0)).join(', ')}; errors ${g.errors})`);
  console.log(`GraphQL / REST: ${out.ratio.toFixed(2)}x (target >= 0.5x)`);
}
