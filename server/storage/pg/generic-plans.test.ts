// The driver's named statements (reads by id, writes of one document) run on PostgreSQL's
// generic plan from their first execution (connection.ts onConnection), instead of being planned
// again for their values each time; statements planned for their values are left as they are.
// Counted by PostgreSQL itself, per connection (pg_prepared_statements).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgBin, startPgCluster, type PgCluster } from '../../test/pg-cluster.js';
import { PgDatabase } from './database.js';
import { getEach } from '../store.js';

let cluster: PgCluster | undefined;
let db: PgDatabase;
beforeAll(async () => {
  if (!pgBin) return;
  cluster = await startPgCluster();
  // One connection: the counts below are that connection's.
  db = await PgDatabase.open(await cluster.createDatabase('plans'), { max: 1 });
}, 60_000);
afterAll(async () => { await db?.close(); cluster?.stop(); });

const plans = async () => (await db.query<{ name: string; generic_plans: string; custom_plans: string }>(
  'SELECT name, generic_plans, custom_plans FROM pg_prepared_statements ORDER BY name')).rows
  .map((r) => ({ name: r.name, generic: Number(r.generic_plans), custom: Number(r.custom_plans) }));

describe.skipIf(!pgBin)('named statements on their generic plan', () => {
  it('reads by id, alone and batched, and writes of one document are never planned for their values', async () => {
    const [a, b] = [await db.store('w', 'a'), await db.store('w', 'b')];
    // Indexes on fields: what made planning costly (the table's index definitions are read).
    await a.ensureIndex({ fieldName: 'n' });
    for (let i = 0; i < 12; i++) {
      await a.insert({ _id: `x${i}`, n: i });
      await a.replace(`x${i}`, { _id: `x${i}`, n: i + 100 });
      expect(await a.get(`x${i}`)).toEqual({ _id: `x${i}`, n: i + 100 });
      expect(await getEach([[a, `x${i}`], [b, 'none']])).toEqual([{ _id: `x${i}`, n: i + 100 }, undefined]);
    }
    const named = (await plans()).filter((p) => p.name.startsWith('hb_') || p.name.startsWith(a.table));
    expect(named.map((p) => p.name)).toEqual(expect.arrayContaining([`${a.table}_ins`, `${a.table}_upd`, expect.stringMatching(/^hb_get_/)]));
    for (const p of named) {
      expect(p, p.name).toMatchObject({ custom: 0 });
      expect(p.generic, p.name).toBeGreaterThanOrEqual(12);
    }
  });

  it('a new connection gets the same setting before its first statement, and no JIT', async () => {
    const client = await db.pool.connect();
    try {
      expect((await client.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0].plan_cache_mode).toBe('force_generic_plan');
      expect((await client.query<{ jit: string }>('SHOW jit')).rows[0].jit).toBe('off');
    } finally { client.release(); }
    // A list page (unnamed, planned for its values) still answers by its values.
    const a = await db.store('w', 'a');
    const page = await a.find({ conditions: [{ path: 'n', op: '$gte', values: [110] }], sort: [{ path: 'n', dir: -1 }], limit: 3, offset: 0 });
    expect(page.data.map((d) => d.n)).toEqual([111, 110]);
    expect(page.total).toBe(2);
  });
});
