// List pages prepared once per connection with their values written in (page-plans.ts): the
// same answers as the statement with parameters, whatever the values hold; a repeated page is
// planned once, without parallel workers, and still reads the table as it is (writes between
// show); at most MAX_PLANS kept per connection; a failed statement leaves no connection behind
// that could be out of step.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { pgBin } from '../../test/pg-cluster.js';
import { usePgDatabase } from '../../test/pg-suite.js';
import { inlineValues, MAX_PLAN_TEXT, PagePlans } from './page-plans.js';
import { listSql } from './sql-query.js';
import { parseListQuery } from '../../core/list-query.js';
import type { Doc } from '../query.js';

const suite = usePgDatabase('pageplans');
const list = (q: string) => parseListQuery(Object.fromEntries(new URLSearchParams(q)), {});
const ids = (docs: Doc[]) => docs.map((d) => d._id);

describe('inlineValues', () => {
  it('writes each placeholder as a literal, and refuses what a statement text cannot carry', () => {
    expect(inlineValues('SELECT $1::text, $2::numeric, $10::jsonb', ['a', 2, 3, 4, 5, 6, 7, 8, 9, '{"x":1}'])).toBe(`SELECT 'a'::text, '2'::numeric, '{"x":1}'::jsonb`);
    expect(inlineValues('SELECT $1::text', ["it's"])).toBe(`SELECT 'it''s'::text`);
    expect(inlineValues('SELECT $1::text', ['a\u0000b'])).toBeUndefined();
    expect(inlineValues('SELECT $1::float8', [Infinity])).toBeUndefined();
    expect(inlineValues('SELECT $2::text', ['a'])).toBeUndefined();
    // A field named with `$1::` in it is a quoted literal of the SQL: no value goes into it.
    expect(inlineValues(`SELECT doc -> 'a$1::x', "t$1::" FROM t WHERE doc ->> 'it''s $1::' = $1::text`, ["x' ; DROP TABLE t; --"]))
      .toBe(`SELECT doc -> 'a$1::x', "t$1::" FROM t WHERE doc ->> 'it''s $1::' = 'x'' ; DROP TABLE t; --'::text`);
  });
});

describe.skipIf(!pgBin)('prepared list pages', () => {
  it('write values as literals PostgreSQL reads back as the parameters', async () => {
    const values = ["it's", 'back\\slash', 'a "q" \\" mix', 12.5, -3, ['"a"', 'b\\"c', "d'e", ''], []];
    const text = 'SELECT $1::text AS a, $2::text AS b, $3::text AS c, $4::numeric AS d, $5::float8 AS e, $6::text[] AS f, $7::jsonb[] AS g';
    const expected = (await suite.db.query(text, values)).rows;
    expect((await suite.db.query(inlineValues(text, values)!)).rows).toEqual(expected);
    expect(expected[0].f).toEqual(values[5]);
  });

  it('answer as the statement with parameters does, for values that need quoting', async () => {
    const s = await suite.db.store('w', 'collections/quotes');
    await s.ensureIndex({ fieldName: 'tag' });
    const tags = ["it's", 'back\\slash', 'a "quoted" one', '$1::text', 'plain', 'ünï'];
    await s.insertMany(Array.from({ length: 60 }, (_, i) => ({ _id: `q${String(i).padStart(3, '0')}`, tag: tags[i % tags.length], n: i % 7, createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString() })));
    const queries = [
      `filter[tag]=${encodeURIComponent("it's")}&sort=-n&limit=5`,
      `filter[tag]=${encodeURIComponent('back\\slash')}&sort=n&limit=5`,
      `filter[tag][$in]=${encodeURIComponent('a "quoted" one')},${encodeURIComponent('$1::text')}&limit=50`,
      `filter[tag][$gte]=${encodeURIComponent('p')}&sort=tag&limit=7`,
      `filter[n][$gte]=3&sort=-tag&limit=9&offset=2`,
      `filter[tag][$contains]=${encodeURIComponent('"')}&sort=n`,
    ];
    for (const qs of queries) {
      const q = list(qs);
      const { page } = listSql(s.table, q, new Set(['tag']));
      const expected = (await suite.db.query<{ doc: Doc }>(page!.text, page!.values)).rows.map((r) => r.doc._id);
      expect(expected.length, qs).toBeGreaterThan(0);
      expect(ids((await s.find(q)).data), qs).toEqual(expected);
      expect(ids((await s.find(q)).data), qs).toEqual(expected); // from the prepared statement
    }
  });

  it('plan a repeated page once on a connection, and read the table as it is each time', async () => {
    const s = await suite.db.store('w', 'collections/people');
    await s.ensureIndex({ fieldName: 'role' });
    await s.ensureIndex({ fieldName: 'age' });
    await s.insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: `p${String(i).padStart(4, '0')}`, role: i % 2 ? 'admin' : 'user', age: i % 60, createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString() })));
    const q = list('filter[role]=admin&sort=-age&limit=3');
    const before = suite.db.pagesPrepared;
    const first = await s.find(q);
    for (let i = 0; i < 4; i++) expect(ids((await s.find(q)).data)).toEqual(ids(first.data));
    // One after the other, the pool hands out the same idle connection: prepared once.
    expect(suite.db.pagesPrepared - before).toBe(1);
    await s.insert({ _id: 'top', role: 'admin', age: 99, createdAt: '2025-01-01T00:00:00.000Z' });
    const after = await s.find(q);
    expect(ids(after.data)).toEqual(['top', ...ids(first.data).slice(0, 2)]);
    expect(after.total).toBe(first.total + 1);
    await s.remove('top');
    expect(ids((await s.find(q)).data)).toEqual(ids(first.data));
    expect(suite.db.pagesPrepared - before).toBe(1);
  });

  it('keep no plan of a long page (big filter values): it is answered the usual way', async () => {
    // A page's text is kept by the server and its plan by PostgreSQL for as long as the
    // connection lives: 100 values of 1,000 characters (what a list request may carry, through
    // GraphQL's body) are written three times into the text, and 16 such plans on each of the
    // pool's connections would hold hundreds of megabytes for nothing.
    const s = await suite.db.store('w', 'collections/longvalues');
    await s.ensureIndex({ fieldName: 'tag' });
    const long = (i: number) => `${String(i).padStart(4, '0')}${'x'.repeat(996)}`;
    await s.insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: `l${String(i).padStart(3, '0')}`, tag: long(i), n: i, createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString() })));
    const q = parseListQuery({ 'filter[tag][$in]': Array.from({ length: 100 }, (_, i) => long(i * 3)).join(','), sort: '-n', limit: '5' }, {});
    const { page } = listSql(s.table, q, new Set(['tag']));
    expect(inlineValues(page!.text, page!.values)!.length).toBeGreaterThan(MAX_PLAN_TEXT);
    const before = suite.db.pagesPrepared;
    expect(ids((await s.find(q)).data)).toEqual(['l027', 'l024', 'l021', 'l018', 'l015']);
    expect(ids((await s.find(q)).data)).toEqual(['l027', 'l024', 'l021', 'l018', 'l015']);
    expect(suite.db.pagesPrepared - before).toBe(0);
    const kept = (await suite.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE length(statement) > $1`, [MAX_PLAN_TEXT])).rows[0].n;
    expect(kept).toBe(0);
    // A short page is still prepared.
    await s.find(list('filter[n][$gte]=3&sort=-n&limit=2'));
    expect(suite.db.pagesPrepared - before).toBe(1);
  });

  it('keep at most their bound per connection, the least recently used deallocated first', async () => {
    const pool = new pg.Pool({ connectionString: suite.db.url, max: 1 });
    try {
      const plans = new PagePlans(pool, 2);
      const texts = [1, 2, 3].map((n) => `SELECT ${n} AS n`);
      for (const t of texts) expect(await plans.rows<{ n: number }>(t)).toEqual([{ n: Number(t.slice(7, 8)) }]);
      await plans.rows(texts[1]); // still kept: not prepared again
      expect(plans.prepared).toBe(3);
      const names = async () => (await pool.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'hb_page_%' ORDER BY name`)).rows.map((r) => r.name);
      expect(await names()).toEqual(['hb_page_2', 'hb_page_3']);
      expect(await plans.rows<{ n: number }>(texts[0])).toEqual([{ n: 1 }]); // evicted: prepared again, in place of 3
      expect(plans.prepared).toBe(4);
      expect(await names()).toEqual(['hb_page_2', 'hb_page_4']);
    } finally {
      await pool.end();
    }
  });

  it('are planned without parallel workers, where an unprepared statement gets them', async () => {
    const pool = new pg.Pool({ connectionString: suite.db.url, max: 1, options: '-c parallel_setup_cost=0 -c parallel_tuple_cost=0 -c min_parallel_table_scan_size=0' });
    try {
      await pool.query('CREATE TABLE page_plans_wide AS SELECT i AS n FROM generate_series(1, 20000) AS i');
      await pool.query('ANALYZE page_plans_wide');
      const text = 'SELECT n FROM page_plans_wide WHERE n % 7 = 0 ORDER BY n DESC LIMIT 3';
      const plan = async (sql: string) => (await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`)).rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(await plan(text)).toMatch(/Gather/);
      const plans = new PagePlans(pool);
      expect(await plans.rows(text)).toEqual([{ n: 19999 }, { n: 19992 }, { n: 19985 }]);
      expect(await plans.rows(text)).toEqual([{ n: 19999 }, { n: 19992 }, { n: 19985 }]);
      expect(await plan('EXECUTE hb_page_1')).not.toMatch(/Gather/);
    } finally {
      await pool.end();
    }
  });

  it('close the connection of a statement that failed, and go on with a new one', async () => {
    const pool = new pg.Pool({ connectionString: suite.db.url, max: 1 });
    try {
      const plans = new PagePlans(pool);
      await pool.query('CREATE TABLE page_plans_gone (n int)');
      await pool.query('INSERT INTO page_plans_gone VALUES (7)');
      const text = 'SELECT n FROM page_plans_gone';
      expect(await plans.rows(text)).toEqual([{ n: 7 }]);
      const pid = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      await pool.query('DROP TABLE page_plans_gone');
      await expect(plans.rows(text)).rejects.toThrow(/page_plans_gone/);
      expect((await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid).not.toBe(pid);
      await pool.query('CREATE TABLE page_plans_gone (n int)');
      await pool.query('INSERT INTO page_plans_gone VALUES (8)');
      expect(await plans.rows(text)).toEqual([{ n: 8 }]);
    } finally {
      await pool.end();
    }
  });
});
