// Store benchmark, both drivers: the embedded store (every record in this process's memory) and
// PostgreSQL (a throwaway cluster with fsync on, as a real one), at 100,000 and 1,000,000
// people records. It drives the one store interface the modules use (server/storage/store.ts):
// GET by id, the filtered + sorted list page of the HTTP benchmark (filter[role]=admin,
// sort=-age, 50), a count (limit=0), and a create; and it reports this process's memory after
// each load, which for PostgreSQL must stay flat as records grow.
// Run: `npx tsx --expose-gc bench/pg-store.ts [--sizes 100000,1000000] [--drivers embedded,postgres] [--seconds 3]`
import { parseArgs } from 'node:util';
import { DocStore } from '../server/storage/embedded/doc-store.js';
import type { Store } from '../server/storage/store.js';
import { embeddedStore } from '../server/storage/embedded/embedded-store.js';
import { PgDatabase } from '../server/storage/pg/database.js';
import { startPgCluster, type PgCluster } from '../server/test/pg-cluster.js';
import type { Doc, StoreQuery } from '../server/storage/query.js';
import { personBody, prng, randomId } from './lib/data.js';

const { values } = parseArgs({ options: { sizes: { type: 'string' }, drivers: { type: 'string' }, seconds: { type: 'string' }, url: { type: 'string' } } });
const sizes = (values.sizes ?? '100000,1000000').split(',').map(Number);
const drivers = (values.drivers ?? 'embedded,postgres').split(',');
const seconds = Number(values.seconds ?? 3);
const CONCURRENCY = 10;

/** People in chunks, so that the generator never holds the whole set. */
function* people(n: number, chunk = 5000): Generator<Doc[]> {
  const rand = prng(42);
  const start = Date.UTC(2024, 0, 1);
  for (let i = 0; i < n; i += chunk) {
    const out: Doc[] = [];
    for (let j = i; j < Math.min(n, i + chunk); j++) {
      const at = new Date(start + j * 1000).toISOString();
      out.push({ _id: randomId(rand), ...personBody(rand, j), createdAt: at, updatedAt: at });
    }
    yield out;
  }
}

const LIST: StoreQuery = { conditions: [{ path: 'role', op: '$eq', values: ['admin'] }], sort: [{ path: 'age', dir: -1 }], limit: 50, offset: 0 };
const COUNT: StoreQuery = { conditions: [{ path: 'role', op: '$eq', values: ['admin'] }], sort: [], limit: 0, offset: 0 };

async function rate(op: (i: number) => Promise<unknown>): Promise<{ perSec: number; p50: number }> {
  const lat: number[] = [];
  const end = performance.now() + seconds * 1000;
  let i = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < end) {
      const t = performance.now();
      await op(i++);
      lat.push(performance.now() - t);
    }
  }));
  lat.sort((a, b) => a - b);
  return { perSec: Math.round(lat.length / seconds), p50: Math.round(lat[Math.floor(lat.length / 2)] * 100) / 100 };
}

function memoryMb(): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: Math.round(m.rss / 1048576), heap: Math.round(m.heapUsed / 1048576) };
}

async function run(driver: string, n: number, open: () => Promise<Store>) {
  const before = memoryMb();
  const store = await open();
  await store.ensureIndex({ fieldName: 'role' });
  const ids: string[] = [];
  const t0 = performance.now();
  for (const chunk of people(n)) {
    for (let k = 0; k < chunk.length; k += Math.ceil(chunk.length / 5)) ids.push(chunk[k]._id);
    await store.insertMany(chunk);
  }
  const loadS = Math.round((performance.now() - t0) / 100) / 10;
  const after = memoryMb();
  const rand = prng(7);
  const get = await rate(async () => { if (!(await store.get(ids[Math.floor(rand() * ids.length)]))) throw new Error('missing'); });
  const list = await rate(() => store.find(LIST));
  const count = await rate(() => store.find(COUNT));
  const create = await rate(async (i) => store.insert({ _id: `new${i}x${n}`, ...personBody(rand, i), createdAt: new Date().toISOString() }));
  const row = { driver, records: n, loadS, rssBeforeMb: before.rss, rssAfterMb: after.rss, heapAfterMb: after.heap, get, list, count, create };
  console.log(JSON.stringify(row));
  await store.drop();
  return row;
}

async function main() {
  let cluster: PgCluster | undefined;
  let db: PgDatabase | undefined;
  const rows = [];
  try {
    for (const driver of drivers) {
      for (const n of sizes) {
        if (driver === 'embedded') rows.push(await run(driver, n, async () => embeddedStore(await DocStore.open())));
        else {
          if (!db) {
            let url = values.url;
            if (!url) { cluster = await startPgCluster({ durable: true }); url = await cluster.createDatabase('bench'); }
            db = await PgDatabase.open(url);
          }
          rows.push(await run(driver, n, () => db!.store('bench', `people${n}`)));
        }
      }
    }
  } finally {
    await db?.close();
    cluster?.stop();
  }
  console.log('\n| driver | records | load (s) | RSS after load (MB) | GET by id /s (p50 ms) | list page /s (p50 ms) | count /s (p50 ms) | create /s (p50 ms) |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const f = (x: { perSec: number; p50: number }) => `${x.perSec} (${x.p50})`;
    console.log(`| ${r.driver} | ${r.records.toLocaleString('en')} | ${r.loadS} | ${r.rssAfterMb} (heap ${r.heapAfterMb}) | ${f(r.get)} | ${f(r.list)} | ${f(r.count)} | ${f(r.create)} |`);
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
