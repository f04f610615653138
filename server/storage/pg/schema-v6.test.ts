// The version 6 upgrade (hb_hkeys inlined): a database made by version 5, with a GIN index built
// by the old function, keeps its index in use for equality filters after the upgrade, answers the
// same records (arrays, nested arrays, missing fields included), and the upgrade may run again.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { pgBin } from '../../test/pg-cluster.js';
import { usePgDatabase } from '../../test/pg-suite.js';
import { createIndex, storeTableSql } from './store-tables.js';
import { migrate, SCHEMA_VERSION } from './schema.js';
import { indexName, listSql } from './sql-query.js';
import { parseListQuery } from '../../core/list-query.js';

const suite = usePgDatabase('schemav6');

describe.skipIf(!pgBin)('schema version 6', () => {
  it('keeps a version 5 database\'s equality indexes in use and its answers the same', async () => {
    const url = await suite.cluster.createDatabase('v5');
    const pool = new pg.Pool({ connectionString: url });
    try {
      await migrate(pool, 5);
      for (const sql of storeTableSql('hb_s_old')) await pool.query(sql);
      await pool.query(`INSERT INTO homebase_stores (workspace, name, table_name) VALUES ('w', 'collections/old', 'hb_s_old')`);
      const c = await pool.connect();
      try { await createIndex(c, 'hb_s_old', 'tag', false); } finally { c.release(); }
      // Made by version 5's function: one in 50 rows an admin, a few holding the value in arrays.
      await pool.query(`INSERT INTO hb_s_old (id, doc)
        SELECT 'r' || lpad(i::text, 6, '0'), jsonb_build_object('_id', 'r' || lpad(i::text, 6, '0'), 'createdAt', '2024-01-01T00:00:00.000Z',
          'tag', CASE WHEN i % 50 = 0 THEN to_jsonb('admin'::text) WHEN i % 997 = 0 THEN '["x", ["admin"]]'::jsonb
                      WHEN i % 991 = 0 THEN '["admin", "y"]'::jsonb WHEN i % 7 = 0 THEN 'null'::jsonb ELSE to_jsonb('user'::text) END)
        FROM generate_series(1, 20000) AS i`);
      await pool.query(`INSERT INTO hb_s_old (id, doc) VALUES ('none', '{"_id":"none","createdAt":"2024-01-01T00:00:00.000Z"}')`);
      await pool.query('ANALYZE hb_s_old');
      const answer = async (on: pg.Pool, q: Record<string, string>) => {
        const { page, count } = listSql('hb_s_old', parseListQuery({ ...q, limit: '100' }, {}));
        const plan = (await on.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${count.text}`, count.values)).rows.map((r) => r['QUERY PLAN']).join('\n');
        const ids = (await on.query<{ doc: { _id: string } }>(page!.text, page!.values)).rows.map((r) => r.doc._id);
        return { plan, ids, total: (await on.query<{ n: number }>(count.text, count.values)).rows[0].n };
      };
      const queries: Array<Record<string, string>> = [{ 'filter[tag]': 'admin' }, { 'filter[tag][$in]': 'x,y' }, { 'filter[tag]': 'null' }];
      const before = await Promise.all(queries.map((q) => answer(pool, q)));
      expect(before[0].total).toBe(400 + 20 + 20);
      await migrate(pool);
      expect((await pool.query('SELECT version FROM homebase_schema')).rows[0].version).toBe(SCHEMA_VERSION);
      // Fresh connections see the new function (and inline it into the index's expression).
      const fresh = new pg.Pool({ connectionString: url });
      try {
        const after = await Promise.all(queries.map((q) => answer(fresh, q)));
        for (const [i, a] of after.entries()) {
          expect(a.ids).toEqual(before[i].ids);
          expect(a.total).toBe(before[i].total);
        }
        expect(after[0].plan).toMatch(new RegExp(`Bitmap Index Scan on ${indexName('hb_s_old', 'tag')}_k0`));
        expect(after[0].plan).not.toMatch(/hb_hkeys\(/); // inlined
        await fresh.query('UPDATE homebase_schema SET version = 5');
        await migrate(fresh);
        expect((await answer(fresh, queries[0])).total).toBe(before[0].total);
      } finally {
        await fresh.end();
      }
    } finally {
      await pool.end();
    }
  });
});
