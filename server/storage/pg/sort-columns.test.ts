// Sort columns (sort-columns.ts, sort-column-fill.ts): a page sorted on a field no index orders
// gives the field typed sort columns (added without rewriting the table, filled by a trigger on
// every later write and by batches for the rows there before), then sorts by them, reading only
// the page's documents; the order stays the embedded driver's for every type (missing, null,
// numbers, strings, booleans, arrays, objects; ties by id), through writes of every kind, a
// snapshot restored by rebuilding the table, a workspace fork, an upgrade from schema version 10;
// an equality's exact test put off to the page's rows falls back to the full test when a row
// fails it.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { pgBin } from '../../test/pg-cluster.js';
import { usePgDatabase } from '../../test/pg-suite.js';
import { parseListQuery } from '../../core/list-query.js';
import { queryDocs, type Doc } from '../query.js';
import { PgDatabase } from './database.js';
import { migrate, SCHEMA_VERSION } from './schema.js';
import { restoreDbSnapshot, takeDbSnapshot } from './snapshots.js';
import { PgWorkspaces } from './workspaces.js';
import { listSql } from './sql-query.js';
import { addSortColumnsSql, backfillSql, sortColumnBase } from './sort-columns.js';
import type { PgDocStore } from './pg-store.js';

const suite = usePgDatabase('sortcols');

const ROLES = ['admin', 'user', 'guest'];
/** Values of every type, several ties on each, a few long strings. Where the drivers are known
 *  to differ (unequal objects, arrays in arrays: PostgreSQL breaks their ties by id) none. */
function valueOf(i: number): unknown {
  switch (i % 13) {
    case 0: return undefined;
    case 1: return null;
    case 2: return (i * 7919) % 50;
    case 3: return -((i * 31) % 7) / 4;
    case 4: return `s${(i * 17) % 40}`;
    case 5: return i % 2 ? 'Z' : 'a\u00e9\u{1F600}';
    case 6: return i % 3 === 0;
    case 7: return [(i % 5), 'x'];
    case 8: return [i % 3, null];
    case 9: return { k: 1 }; // objects tie (the drivers differ on unequal ones)
    case 10: return 'L'.repeat(250) + (i % 3);
    case 11: return [];
    default: return 1e-7 * (i % 11);
  }
}
const docsOf = (n: number, from = 0): Doc[] => Array.from({ length: n }, (_, k) => {
  const i = from + k;
  const d: Doc = { _id: `d${String((i * 7907) % 100_003).padStart(6, '0')}-${i}`, role: ROLES[i % 3], n: i };
  const v = valueOf(i);
  if (v !== undefined) d.v = v;
  if (i % 4) d.o = { w: valueOf(i + 5) };
  return d;
});

const QUERIES: Array<Record<string, string>> = [
  { 'filter[role]': 'admin', sort: '-v', limit: '60' },
  { 'filter[role]': 'admin', sort: 'v', limit: '60', offset: '35' },
  { sort: 'v,-n', limit: '80' },
  { 'filter[role][$in]': 'user,guest', sort: '-o.w,_id', limit: '50' },
  { 'filter[role]': 'admin', 'filter[n][$gte]': '300', sort: 'v', limit: '1000' },
];

/** Each query's page on `store` and as the embedded driver answers it over `docs`. */
async function compare(store: PgDocStore, docs: Doc[]): Promise<void> {
  for (const raw of QUERIES) {
    const q = parseListQuery(raw, {});
    const got = await store.find(q);
    const want = queryDocs(docs, q);
    expect(got.data.map((d) => d._id), JSON.stringify(raw)).toEqual(want.data.map((d) => d._id));
    expect(got.total).toBe(want.total);
  }
}

const columnsOf = async (on: pg.Pool, table: string) => (await on.query<{ attname: string }>(
  `SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attname LIKE 'hb\\_o\\_%' AND NOT attisdropped ORDER BY attname`, [table])).rows.map((r) => r.attname);
const validated = async (on: pg.Pool, table: string) => (await on.query<{ conname: string }>(
  `SELECT conname FROM pg_constraint WHERE conrelid = $1::regclass AND conname LIKE 'hb\\_o\\_%' AND convalidated ORDER BY conname`, [table])).rows.map((r) => r.conname);

/** The page's SQL as the store sends it (sort columns as it knows them), and its plan. */
async function planOf(store: PgDocStore, raw: Record<string, string>): Promise<{ text: string; plan: string }> {
  const q = parseListQuery(raw, {});
  const ready = await store.sortColumns.forSort(q.sort, new Set(['role']));
  const { page } = listSql(store.table, q, new Set(['role']), ready);
  const plan = (await suite.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${page!.text}`, page!.values)).rows.map((r) => r['QUERY PLAN']).join('\n');
  return { text: page!.text, plan };
}

describe.skipIf(!pgBin)('sort columns', () => {
  it('are made when a page first sorts on a field no index orders, then used, answering in the embedded order', async () => {
    const store = await suite.db.store('w', 'collections/mixed');
    await store.ensureIndex({ fieldName: 'role' });
    const docs = docsOf(3000);
    await store.insertMany(docs);
    await suite.db.query(`ANALYZE ${store.table}`);
    expect(await columnsOf(suite.db.pool, store.table)).toEqual([]);
    await compare(store, docs); // answered from the documents, and asks for the columns
    await store.sortColumns.settled();
    const [v, w, n] = [sortColumnBase('v'), sortColumnBase('o.w'), sortColumnBase('n')];
    expect(await columnsOf(suite.db.pool, store.table)).toEqual([v, w, n].flatMap((b) => [`${b}_n`, `${b}_r`, `${b}_s`]).sort());
    expect(await validated(suite.db.pool, store.table)).toEqual([v, w, n].map((b) => `${b}_ok`).sort());
    const { text, plan } = await planOf(store, QUERIES[0]);
    expect(text).toContain(`ORDER BY ${v}_r DESC, ${v}_n DESC, ${v}_s DESC`);
    expect(plan, plan).toMatch(/Tid Scan on .*\n\s*TID Cond: \(ctid = /); // only the page's documents are read whole
    expect(plan).not.toMatch(/Filter: .*= ANY/); // the exact test is not run on every match
    expect(plan).not.toMatch(/Seq Scan/);
    await compare(store, docs);

    // Every kind of write keeps them: insert, batch, replace, update, patch, remove.
    const more = docsOf(200, 3000);
    await store.insertMany(more.slice(0, 150));
    for (const d of more.slice(150)) await store.insert(d);
    docs.push(...more);
    const at = (id: string) => docs.findIndex((d) => d._id === id);
    await store.replace(docs[10]._id, { ...docs[10], v: 'replaced' });
    docs[at(docs[10]._id)] = { ...docs[10], v: 'replaced' };
    await store.update(docs[20]._id, (cur) => ({ ...cur, v: -1000 }));
    docs[20] = { ...docs[20], v: -1000 };
    await store.patch(docs[30]._id, { v: [true] });
    docs[30] = { ...docs[30], v: [true] };
    await store.patch(docs[40]._id, { o: { w: 'patched' } });
    docs[40] = { ...docs[40], o: { w: 'patched' } };
    await store.remove(docs[50]._id);
    docs.splice(50, 1);
    await compare(store, docs);
    const raw = await suite.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${store.table} WHERE ${v}_r IS NULL OR ${w}_r IS NULL`);
    expect(raw.rows[0].n).toBe(0);
  });

  it('give keyset pages (a cursor\'s windows) forward and backward in the embedded order', async () => {
    const store = await suite.db.store('w7', 'collections/windows');
    await store.ensureIndex({ fieldName: 'role' });
    const docs = docsOf(1200);
    await store.insertMany(docs);
    const queries: Array<Record<string, string>> = [{ sort: '-v', 'filter[role]': 'admin' }, { sort: 'v,-n' }, { sort: '-o.w', 'filter[role][$in]': 'user,guest' }];
    for (const raw of queries) {
      const all = parseListQuery(raw, {});
      all.limit = docs.length;
      const whole = queryDocs(docs, all).data.map((d) => d._id);
      const walk = async (backward: boolean) => {
        const ids: string[] = [];
        let seek: unknown[] | undefined;
        for (let pages = 0; pages < 100; pages++) {
          const q = parseListQuery({ ...raw, limit: '37' }, {});
          q.window = { ...(seek ? { seek } : {}), backward };
          const page = await store.find(q);
          const got = page.data.map((d) => d._id);
          if (backward) ids.unshift(...got); else ids.push(...got);
          const result = q.window.result!;
          if (!result.more) break;
          seek = backward ? result.first : result.last;
        }
        return ids;
      };
      await walk(false); // asks for the columns
      await store.sortColumns.settled();
      const { text } = await planOf(store, { ...raw, limit: '37' });
      expect(text).toContain('hb_o_');
      expect(await walk(false), JSON.stringify(raw)).toEqual(whole);
      expect(await walk(true), JSON.stringify(raw)).toEqual(whole);
    }
  });

  it('stay right through a snapshot restored by rebuilding the table, and a fork', async () => {
    const store = await suite.db.store('w2', 'collections/snap');
    const docs = docsOf(1500);
    await store.insertMany(docs);
    await compare(store, docs);
    await store.sortColumns.settled();
    expect(await validated(suite.db.pool, store.table)).toHaveLength(3);
    await takeDbSnapshot(suite.db, 'w2', 'base');
    // More than a patch's worth of changes: the restore rebuilds the table (without columns).
    await store.replaceAll(docsOf(1500, 5000));
    await restoreDbSnapshot(suite.db, 'w2', 'base');
    const again = await suite.db.store('w2', 'collections/snap');
    expect(await columnsOf(suite.db.pool, again.table)).toEqual([]);
    // Another process's handle, still sure of the columns it saw, reads without them.
    await compare(store, docs);
    await compare(again, docs);
    await again.sortColumns.settled();
    expect(await validated(suite.db.pool, again.table)).toHaveLength(3);
    await compare(again, docs);

    // A fork copies the rows into new tables; a page there makes its own columns.
    const workspaces = new PgWorkspaces(suite.db);
    await workspaces.create('w2', 'w2', { createdAt: new Date().toISOString() }, {});
    await workspaces.fork('w2', 'w3', { name: 'w3', keys: {}, skip: new Set() });
    const forked = await suite.db.store('w3', 'collections/snap');
    await compare(forked, docs);
    await forked.sortColumns.settled();
    expect(await validated(suite.db.pool, forked.table)).toHaveLength(3);
    await compare(forked, docs);
  });

  it('are made once when two processes ask at the same moment, and both then use them', async () => {
    const other = await PgDatabase.open(suite.db.url); // a second process's handle on the database
    try {
      const a = await suite.db.store('w4', 'collections/two');
      await a.ensureIndex({ fieldName: 'role' });
      const docs = docsOf(2000);
      await a.insertMany(docs);
      const b = await other.store('w4', 'collections/two');
      expect(b.table).toBe(a.table);
      await Promise.all([compare(a, docs), compare(b, docs)]);
      await Promise.all([a.sortColumns.settled(), b.sortColumns.settled()]);
      const bases = ['v', 'o.w', 'n'].map(sortColumnBase);
      expect(await columnsOf(suite.db.pool, a.table)).toEqual(bases.flatMap((x) => [`${x}_n`, `${x}_r`, `${x}_s`]).sort());
      expect(await validated(suite.db.pool, a.table)).toEqual(bases.map((x) => `${x}_ok`).sort());
      const triggers = await suite.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal`, [a.table]);
      expect(triggers.rows[0].n).toBe(1);
      // Writes through either process fill them; both answer from them.
      const more = docsOf(100, 7000);
      await a.insertMany(more.slice(0, 50));
      await b.insertMany(more.slice(50));
      await Promise.all([compare(a, [...docs, ...more]), compare(b, [...docs, ...more])]);
      expect((await planOf(a, QUERIES[0])).text).toContain(`${bases[0]}_r DESC`);
    } finally {
      await other.close();
    }
  });

  it('are not added while a statement holds the table past the lock wait, and nothing waits behind the try', async () => {
    const store = await suite.db.store('w5', 'collections/busy');
    const docs = docsOf(300);
    await store.insertMany(docs);
    const holder = await suite.db.pool.connect();
    try {
      // A long statement's lock on the table (a transaction that read it and is still open).
      await holder.query('BEGIN');
      await holder.query(`SELECT count(*) FROM ${store.table}`);
      await compare(store, docs); // asks for the columns: the ALTER TABLE gives up its wait
      await store.sortColumns.settled();
      expect(await columnsOf(suite.db.pool, store.table)).toEqual([]);
      // Reads and writes go on (a waiting ALTER TABLE would hold them until the holder ends).
      await store.insert(docsOf(1, 400)[0]);
      await compare(store, [...docs, ...docsOf(1, 400)]);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
    }
  });

  it('are filled past rows a writer holds locked, without waiting for them; a later pass fills those', async () => {
    const store = await suite.db.store('w6', 'collections/locked');
    const docs = docsOf(12_000);
    await store.insertMany(docs);
    await suite.db.tx(async (c) => { for (const sql of addSortColumnsSql(store.table, 'v', [])) await c.query(sql); });
    const fill = async () => {
      let last = '';
      for (;;) {
        const next = (await suite.db.query<{ last: string | null }>(backfillSql(store.table, 'v'), [last])).rows[0]?.last;
        if (next == null) return;
        last = next;
      }
    };
    const r = `${sortColumnBase('v')}_r`;
    const empty = async () => (await suite.db.query<{ id: string }>(`SELECT id FROM ${store.table} WHERE ${r} IS NULL ORDER BY id`)).rows.map((x) => x.id);
    const locked = [...docs].sort((a, b) => (a._id < b._id ? -1 : 1))[7000]._id; // in the second batch
    const holder = await suite.db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM ${store.table} WHERE id = $1 FOR UPDATE`, [locked]);
      await fill(); // would wait for the holder's transaction if it did not skip the row
      expect(await empty()).toEqual([locked]);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
    }
    await fill();
    expect(await empty()).toEqual([]);
  });

  it('serve only the path their comment names: columns under a field\'s name holding another path\'s values are neither used nor reused for it', async () => {
    // Names are a sha256 digest of the path, 128 bits of it.
    expect(sortColumnBase('v')).toMatch(/^hb_o_[0-9a-f]{32}$/);
    expect(`${sortColumnBase('v'.repeat(200))}_ok`.length).toBeLessThanOrEqual(63);
    const store = await suite.db.store('w8', 'collections/named');
    const docs: Doc[] = Array.from({ length: 400 }, (_, i) => ({ _id: `n${String(i).padStart(4, '0')}`, a: i, b: -i }));
    await store.insertMany(docs);
    const page = async (sort: string) => {
      const q = parseListQuery({ sort, limit: '30', offset: '5' }, {});
      expect((await store.find(q)).data.map((d) => d._id), sort).toEqual(queryDocs(docs, q).data.map((d) => d._id));
    };
    await page('a');
    await store.sortColumns.settled();
    // Two paths forced onto one name: `a`'s columns (its values, its comment, its trigger
    // arguments) renamed to `b`'s name, as a digest collision would have them.
    const [A, B] = [sortColumnBase('a'), sortColumnBase('b')];
    for (const x of ['r', 'n', 's']) await suite.db.query(`ALTER TABLE ${store.table} RENAME COLUMN ${A}_${x} TO ${B}_${x}`);
    await suite.db.query(`ALTER TABLE ${store.table} RENAME CONSTRAINT ${A}_ok TO ${B}_ok`);
    await suite.db.query(`DROP TRIGGER hb_sort_columns ON ${store.table}`);
    await suite.db.query(`CREATE TRIGGER hb_sort_columns BEFORE INSERT OR UPDATE OF doc ON ${store.table} FOR EACH ROW EXECUTE FUNCTION hb_sort_columns('a', '${B}')`);
    store.sortColumns.forget();
    const comment = async () => (await suite.db.query<{ c: string }>(
      `SELECT col_description($1::regclass, (SELECT attnum FROM pg_attribute WHERE attrelid = $1::regclass AND attname = $2)) AS c`, [store.table, `${B}_r`])).rows[0].c;
    // `b` is answered from the documents, asks for columns, and gets none: the name is taken
    // by columns that hold `a`'s values.
    await page('-b');
    await page('b');
    await store.sortColumns.settled();
    await page('b');
    expect(await comment()).toBe('a');
    expect((await planOf(store, { sort: 'b', limit: '30' })).text).not.toContain(B);
    // `a`, whose columns are no longer under its name, is not answered from them either, and
    // gets its own again; writes fill both.
    await page('-a');
    await store.sortColumns.settled();
    expect(await columnsOf(suite.db.pool, store.table)).toEqual([A, B].flatMap((x) => [`${x}_n`, `${x}_r`, `${x}_s`]).sort());
    expect((await planOf(store, { sort: 'a', limit: '30' })).text).toContain(`${A}_r`);
    const more: Doc = { _id: 'n9999', a: -5, b: 5 };
    await store.insert(more);
    docs.push(more);
    await page('a');
    await page('b');
    await page('-b');
  });

  it('are made only for a field that a record of the page holds: a sort on made-up names adds nothing', async () => {
    const store = await suite.db.store('w9', 'collections/public');
    const docs = docsOf(600);
    await store.insertMany(docs);
    for (const sort of ['nosuch1', '-nosuch2', 'o.nosuch3', 'nosuch4,-v', '-v']) {
      const q = parseListQuery({ sort, limit: '40' }, {});
      expect((await store.find(q)).data.map((d) => d._id), sort).toEqual(queryDocs(docs, q).data.map((d) => d._id));
    }
    await store.sortColumns.settled();
    const v = sortColumnBase('v');
    expect(await columnsOf(suite.db.pool, store.table)).toEqual([`${v}_n`, `${v}_r`, `${v}_s`]);
    expect(await validated(suite.db.pool, store.table)).toEqual([`${v}_ok`]);
    // A field the page's record holds, nested, even as null: columns.
    const q = parseListQuery({ sort: '-o.w', 'filter[n][$gte]': '9', 'filter[n][$lte]': '9', limit: '40' }, {});
    expect(queryDocs(docs, q).data.map((d) => d.o)).toEqual([{ w: null }]);
    expect((await store.find(q)).data.map((d) => d._id)).toEqual(queryDocs(docs, q).data.map((d) => d._id));
    await store.sortColumns.settled();
    expect(await validated(suite.db.pool, store.table)).toEqual([v, sortColumnBase('o.w')].map((b) => `${b}_ok`).sort());
  });

  it('put off the exact equality test to the page, and read the page again when a row fails it', async () => {
    const url = await suite.cluster.createDatabase('collide');
    const db = await PgDatabase.open(url);
    try {
      const store = await db.store('w', 'collections/c');
      await store.ensureIndex({ fieldName: 'role' });
      const docs = docsOf(900);
      await store.insertMany(docs);
      await compare(store, docs);
      await store.sortColumns.settled();
      // Every digest lookup now matches every role, as colliding digests would.
      await db.query(`CREATE OR REPLACE FUNCTION hb_hvals(vals jsonb[]) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
        $$ SELECT ARRAY[md5('"admin"'), md5('"user"'), md5('"guest"')] $$`);
      await compare(store, docs);
    } finally {
      await db.close();
    }
  });

  it('work on a database upgraded from schema version 10, whose upgrade may run again', async () => {
    const url = await suite.cluster.createDatabase('v10');
    const pool = new pg.Pool({ connectionString: url });
    try {
      await migrate(pool, 10);
      await pool.end();
      const db = await PgDatabase.open(url); // upgrades to the current version
      try {
        expect((await db.query<{ version: number }>('SELECT version FROM homebase_schema')).rows[0].version).toBe(SCHEMA_VERSION);
        const store = await db.store('w', 'collections/up');
        const docs = docsOf(700);
        await store.insertMany(docs);
        await compare(store, docs);
        await store.sortColumns.settled();
        expect(await validated(db.pool, store.table)).toHaveLength(3);
        await compare(store, docs);
        await db.query('UPDATE homebase_schema SET version = 10');
      } finally {
        await db.close();
      }
      const db2 = await PgDatabase.open(url);
      try {
        const store = await db2.store('w', 'collections/up');
        await store.insert(docsOf(1, 900)[0]);
        await compare(store, [...docsOf(700), ...docsOf(1, 900)]);
      } finally {
        await db2.close();
      }
    } finally {
      await pool.end().catch(() => undefined);
    }
  });
});
