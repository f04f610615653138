// Snapshot restore inside PostgreSQL (server/storage/pg/snapshots.ts), against the restore
// targets of docs/performance.md (1,000 records < 50 ms, 10,000 < 300 ms, slowest kind): a
// workspace with a users store and a records store of N people, restored after a test changed
// one record ("changed") and after every record was rewritten ("full"). A throwaway cluster with
// fsync on. Run: `npx tsx bench/pg-restore.ts [--sizes 1000,10000] [--runs 15]`
import { parseArgs } from 'node:util';
import { PgDatabase } from '../server/storage/pg/database.js';
import { restoreDbSnapshot, takeDbSnapshot } from '../server/storage/pg/snapshots.js';
import { startPgCluster } from '../server/test/pg-cluster.js';
import { generatePeople } from './lib/data.js';

const { values } = parseArgs({ options: { sizes: { type: 'string' }, runs: { type: 'string' } } });
const sizes = (values.sizes ?? '1000,10000').split(',').map(Number);
const runs = Number(values.runs ?? 15);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const cluster = await startPgCluster({ durable: true });
const db = await PgDatabase.open(await cluster.createDatabase('restore'));
try {
  console.log('| records | after one change (ms, median / min–max) | whole store rewritten (ms) |');
  console.log('|---:|---:|---:|');
  for (const n of sizes) {
    const ws = `w${n}`;
    const people = await db.store(ws, 'collections/people');
    await people.ensureIndex({ fieldName: 'role' });
    await people.ensureIndex({ fieldName: 'email', unique: true });
    await people.insertMany(generatePeople(n) as never);
    await (await db.store(ws, 'users')).insert({ _id: 'admin', email: 'admin@example.com' });
    await takeDbSnapshot(db, ws, 'base');
    const ids = (await people.find({ conditions: [], sort: [], limit: 100, offset: 0 })).data.map((d) => d._id);
    const changed: number[] = [];
    const full: number[] = [];
    for (let i = 0; i < runs; i++) {
      const store = await db.store(ws, 'collections/people');
      const id = ids[i % ids.length];
      await store.replace(id, { _id: id, name: `changed ${i}` });
      let t = performance.now();
      await restoreDbSnapshot(db, ws, 'base');
      changed.push(performance.now() - t);
      await db.query(`UPDATE ${(await db.store(ws, 'collections/people')).table} SET doc = doc || '{"touched": true}'`);
      t = performance.now();
      await restoreDbSnapshot(db, ws, 'base');
      full.push(performance.now() - t);
    }
    const f = (xs: number[]) => `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
    console.log(`| ${n.toLocaleString('en')} | ${f(changed)} | ${f(full)} |`);
  }
} finally {
  await db.close();
  cluster.stop();
}
