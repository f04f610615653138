// The sort index beside each user index on one field (sql-query.ts sortIndexSql): created and
// dropped with the user index, added by the version 5 upgrade to indexes made before it, and used
// by the planner for a filtered page sorted by the field (a backward scan when descending) and
// for an unfiltered one.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { pgBin } from '../../test/pg-cluster.js';
import { usePgDatabase } from '../../test/pg-suite.js';
import { storeTableSql } from './pg-store.js';
import { migrate, SCHEMA_VERSION } from './schema.js';
import { indexName, listSql } from './sql-query.js';
import { parseListQuery } from '../../core/list-query.js';

const suite = usePgDatabase('sortindex');

const indexesOf = async (on: pg.Pool, table: string) =>
  (await on.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname', [table])).rows.map((r) => r.indexname);

describe.skipIf(!pgBin)('sort indexes', () => {
  it('come and go with a user index on one field; a compound index has none', async () => {
    const s = await suite.db.store('w', 'collections/life');
    await s.ensureIndex({ fieldName: 'age' });
    await s.ensureIndex({ fieldName: 'shop,sku' });
    const sortIndex = `${indexName(s.table, 'age')}_s`;
    expect(await indexesOf(suite.db.pool, s.table)).toContain(sortIndex);
    expect((await indexesOf(suite.db.pool, s.table)).filter((n) => n.endsWith('_s'))).toEqual([sortIndex]);
    await s.ensureIndex({ fieldName: 'age', unique: true }); // rebuilt as unique: dropped, created
    expect(await indexesOf(suite.db.pool, s.table)).toContain(sortIndex);
    await s.removeIndex('age');
    expect((await indexesOf(suite.db.pool, s.table)).filter((n) => n.endsWith('_s'))).toEqual([]);
  });

  it('the planner reads a filtered or unfiltered page sorted by an indexed field from its sort index', async () => {
    const s = await suite.db.store('w', 'collections/people');
    await s.ensureIndex({ fieldName: 'role' });
    await s.ensureIndex({ fieldName: 'age' });
    const roles = ['admin', 'user', 'guest', 'owner'];
    await s.insertMany(Array.from({ length: 20_000 }, (_, i) => ({
      _id: `p${String(i).padStart(6, '0')}`, createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString(),
      role: roles[i % 4], age: (i * 7919) % 90, name: `n${i}`,
    })));
    await suite.db.query(`ANALYZE ${s.table}`);
    const sortIndex = `${indexName(s.table, 'age')}_s`;
    const plan = async (q: string) => {
      const { page } = listSql(s.table, parseListQuery(Object.fromEntries(new URLSearchParams(q)), {}));
      return (await suite.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${page!.text}`, page!.values)).rows.map((r) => r['QUERY PLAN']).join('\n');
    };
    expect(await plan('filter[role]=admin&sort=-age&limit=50')).toMatch(new RegExp(`Index Scan Backward using ${sortIndex}`));
    expect(await plan('sort=age&limit=50')).toMatch(new RegExp(`Index Scan using ${sortIndex}`));
    // And the answers are the sorted ones.
    const page = await s.find(parseListQuery({ 'filter[role]': 'admin', sort: '-age', limit: '5' }, {}));
    expect(page.total).toBe(5000);
    expect(page.data.map((d) => d.age)).toEqual([88, 88, 88, 88, 88]); // admins (every 4th) have even ages only;
    const ids = page.data.map((d) => d._id);
    expect(ids).toEqual([...ids].sort());
  });

  it('the version 5 upgrade adds them to the user indexes of an older database, and may run again', async () => {
    const url = await suite.cluster.createDatabase('v4');
    const pool = new pg.Pool({ connectionString: url });
    await migrate(pool, 4);
    for (const sql of storeTableSql('hb_s_old')) await pool.query(sql);
    await pool.query(`INSERT INTO hb_s_old (id, doc) VALUES ('a', '{"_id":"a","age":3,"p":{"q":"x"}}')`);
    await pool.query(`INSERT INTO homebase_stores (workspace, name, table_name) VALUES ('w', 'collections/old', 'hb_s_old')`);
    await pool.query(`INSERT INTO homebase_indexes (table_name, field_name, is_unique) VALUES ('hb_s_old', 'age', false), ('hb_s_old', 'p.q', true), ('hb_s_old', 'a,b', false)`);
    await migrate(pool);
    const want = [`${indexName('hb_s_old', 'age')}_s`, `${indexName('hb_s_old', 'p.q')}_s`].sort();
    expect((await indexesOf(pool, 'hb_s_old')).filter((n) => n.endsWith('_s'))).toEqual(want);
    expect((await pool.query('SELECT version FROM homebase_schema')).rows[0].version).toBe(SCHEMA_VERSION);
    await pool.query('UPDATE homebase_schema SET version = 4');
    await migrate(pool);
    expect((await indexesOf(pool, 'hb_s_old')).filter((n) => n.endsWith('_s'))).toEqual(want);
    await pool.end();
  });
});
