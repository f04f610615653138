// The ordered indexes beside each user index on one field (sql-query.ts orderedIndexesSql):
// created and dropped with the user index, put by the version 8 upgrade in place of the sort
// index of version 5, and used by the planner for a filtered page sorted by the field (a
// backward scan of `_sd` when descending, `_sa` forward when ascending) that stops after the page
// however many rows tie on the field; long strings and arrays, sorted apart, merged in order.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { pgBin } from '../../test/pg-cluster.js';
import { usePgDatabase } from '../../test/pg-suite.js';
import { storeTableSql } from './store-tables.js';
import { migrate, SCHEMA_VERSION } from './schema.js';
import { SORT_PREFIX_CHARS } from './sql-query.js';
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
    const name = indexName(s.table, 'age');
    const ordered = [`${name}_sa`, `${name}_sd`, `${name}_sx`];
    const sortIndexes = async () => (await indexesOf(suite.db.pool, s.table)).filter((n) => /_s[adx]?$/.test(n));
    expect(await sortIndexes()).toEqual(ordered);
    await s.ensureIndex({ fieldName: 'age', unique: true }); // rebuilt as unique: dropped, created
    expect(await sortIndexes()).toEqual(ordered);
    await s.removeIndex('age');
    expect(await sortIndexes()).toEqual([]);
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
    const name = indexName(s.table, 'age');
    const plan = async (q: string) => {
      const { page } = listSql(s.table, parseListQuery(Object.fromEntries(new URLSearchParams(q)), {}), new Set(['role', 'age']));
      return (await suite.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) ${page!.text}`, page!.values)).rows.map((r) => r['QUERY PLAN']).join('\n');
    };
    // About 220 rows share each age here: the page stops after its 50 (plus the rows the filter skips).
    const desc = await plan('filter[role]=admin&sort=-age&limit=50');
    expect(desc).toMatch(new RegExp(`Index Scan Backward using ${name}_sd on \\S+ \\(actual time=\\S+ rows=50 `));
    expect(desc).toMatch(new RegExp(`(Index Scan using|Bitmap Index Scan on) ${name}_sx `));
    expect(desc).not.toMatch(/Incremental Sort/);
    expect(await plan('sort=age&limit=50')).toMatch(new RegExp(`Index Scan using ${name}_sa on \\S+ \\(actual time=\\S+ rows=50 `));
    // And the answers are the sorted ones.
    const page = await s.find(parseListQuery({ 'filter[role]': 'admin', sort: '-age', limit: '5' }, {}));
    expect(page.total).toBe(5000);
    expect(page.data.map((d) => d.age)).toEqual([88, 88, 88, 88, 88]); // admins (every 4th) have even ages only;
    const ids = page.data.map((d) => d._id);
    expect(ids).toEqual([...ids].sort());
    // Values that sort by more than their bounded keys (arrays, long strings) are merged in their place.
    const long = 'x'.repeat(SORT_PREFIX_CHARS);
    await s.insertMany([
      { _id: 'arr1', createdAt: '2025-01-01T00:00:00.000Z', role: 'admin', age: [1, 2] },
      { _id: 'arr0', createdAt: '2025-01-01T00:00:00.000Z', role: 'admin', age: [1] },
      { _id: 'str2', createdAt: '2025-01-01T00:00:00.000Z', role: 'admin', age: `${long}b` },
      { _id: 'str1', createdAt: '2025-01-01T00:00:00.000Z', role: 'admin', age: `${long}a` },
      { _id: 'str0', createdAt: '2025-01-01T00:00:00.000Z', role: 'admin', age: long },
      { _id: 'str3', createdAt: '2025-01-01T00:00:00.000Z', role: 'admin', age: 'y' },
      { _id: 'boo1', createdAt: '2025-01-01T00:00:00.000Z', role: 'admin', age: true },
    ]);
    const top = await s.find(parseListQuery({ 'filter[role]': 'admin', sort: '-age', limit: '8' }, {}));
    expect(top.data.map((d) => d._id)).toEqual(['arr1', 'arr0', 'boo1', 'str3', 'str2', 'str1', 'str0', ids[0]]);
    const second = await s.find(parseListQuery({ 'filter[role]': 'admin', sort: '-age', limit: '3', offset: '4' }, {}));
    expect(second.data.map((d) => d._id)).toEqual(['str2', 'str1', 'str0']);
  });

  it('a page sorted on a field without an index keeps only the best rows of every match (a top-N heapsort), reading the field once a row', async () => {
    const s = await suite.db.store('w', 'collections/people'); // the records of the test above: no index on name
    const q = { 'filter[role]': 'admin', sort: '-name,age', limit: '20', offset: '10' };
    const { page } = listSql(s.table, parseListQuery(q, {}), new Set(['role', 'age']));
    const plan = (await suite.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) ${page!.text}`, page!.values)).rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Sort Method: top-N heapsort/);
    expect(plan).toMatch(/Subquery Scan/);
    // The same rows in the same order as sorting every admin here (the few without a name, of the
    // test above, sort last when descending).
    const all = await s.findBy('role', 'admin');
    const cmp = (a: Record<string, unknown>, b: Record<string, unknown>) => (typeof a.name === 'string' && typeof b.name === 'string' && a.name !== b.name
      ? (a.name < b.name ? 1 : -1) : Number(a.age) - Number(b.age) || (String(a._id) < String(b._id) ? -1 : 1));
    const want = all.filter((d) => typeof d.name === 'string' && typeof d.age === 'number').sort(cmp).slice(10, 30).map((d) => d._id);
    const got = await s.find(parseListQuery(q, {}));
    expect(got.data.map((d) => d._id)).toEqual(want);
    expect(got.total).toBe(all.length);
  });

  it('the version 8 upgrade puts them in place of version 5\'s sort indexes, and may run again', async () => {
    const url = await suite.cluster.createDatabase('v4');
    const pool = new pg.Pool({ connectionString: url });
    try {
      await migrate(pool, 4);
      for (const sql of storeTableSql('hb_s_old')) await pool.query(sql);
      await pool.query(`INSERT INTO hb_s_old (id, doc) VALUES ('a', '{"_id":"a","age":3,"p":{"q":"x"}}')`);
      await pool.query(`INSERT INTO homebase_stores (workspace, name, table_name) VALUES ('w', 'collections/old', 'hb_s_old')`);
      await pool.query(`INSERT INTO homebase_indexes (table_name, field_name, is_unique) VALUES ('hb_s_old', 'age', false), ('hb_s_old', 'p.q', true), ('hb_s_old', 'a,b', false)`);
      await migrate(pool, 5);
      const sortIndexes = async () => (await indexesOf(pool, 'hb_s_old')).filter((n) => /_s[adx]?$/.test(n));
      expect(await sortIndexes()).toEqual([`${indexName('hb_s_old', 'age')}_s`, `${indexName('hb_s_old', 'p.q')}_s`].sort());
      await migrate(pool);
      const want = ['age', 'p.q'].flatMap((f) => ['sa', 'sd', 'sx'].map((x) => `${indexName('hb_s_old', f)}_${x}`)).sort();
      expect(await sortIndexes()).toEqual(want);
      expect((await pool.query('SELECT version FROM homebase_schema')).rows[0].version).toBe(SCHEMA_VERSION);
      await pool.query('UPDATE homebase_schema SET version = 7');
      await migrate(pool);
      expect(await sortIndexes()).toEqual(want);
      // Version 9 writes `_sx`'s predicate as the page query writes it.
      const predicate = async () => (await pool.query<{ d: string }>(`SELECT indexdef AS d FROM pg_indexes WHERE indexname = $1`, [`${indexName('hb_s_old', 'age')}_sx`])).rows[0].d;
      await pool.query(`DROP INDEX ${indexName('hb_s_old', 'age')}_sx`);
      await pool.query(`CREATE INDEX ${indexName('hb_s_old', 'age')}_sx ON hb_s_old ((1)) WHERE false`);
      await pool.query('UPDATE homebase_schema SET version = 8');
      await migrate(pool);
      expect(await predicate()).toMatch(/ WHERE [\s\S]*CASE[\s\S]*= 1/);
    } finally {
      await pool.end();
    }
  });
});
