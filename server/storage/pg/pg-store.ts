// The PostgreSQL driver's stores. One table per store (a collection's records, a workspace's
// users, sessions, ...): `(id text PRIMARY KEY, doc jsonb)`, named hb_s_<n> and listed in
// homebase_stores (workspace, name) → table. Why a table each rather than one table keyed by
// collection: see docs/scaling.md (per-collection statistics and plans, DROP / TRUNCATE as one
// cheap transactional step, unique indexes without a partial predicate per collection).
import type pg from 'pg';
import { StoreUnavailableError, UniqueViolationError, UnstorableValueError } from '../errors.js';
import { checkObject } from '../field-names.js';
import { DEFAULT_SORT, project, type Condition, type Doc, type QueryResult, type StoreQuery } from '../query.js';
import { finishWindow, windowKeys } from '../page-window.js';
import { activeWriteGroup } from '../write-group.js';
import { PgGroupTx } from './group-tx.js';
import type { IndexSpec } from '../store.js';
import type { Store } from '../store.js';
import { KeyedSections } from '../keyed-sections.js';
import { guardClients, openDatabase, toUnavailable, type PgOptions } from './connection.js';
import { CountCache } from './count-cache.js';
import { hashKeysExpr, indexName, listSql, orderedIndexesSql, pathExpr, sortExprs, whereSql, Params } from './sql-query.js';

type Queryable = pg.Pool | pg.PoolClient;

/** A PostgreSQL error as the API's: unique violations → 409, text PostgreSQL cannot hold → 422,
 *  a lost server → 503. */
export function translatePgError(err: unknown): unknown {
  const e = err as { code?: string; detail?: string; message?: string };
  if (e?.code === '23505') {
    const m = /\)=\((.*)\) already exists/.exec(e.detail ?? '');
    return new UniqueViolationError('A unique constraint was violated', m ? { value: m[1] } : undefined);
  }
  if (e?.code === '22P05' || e?.code === '22021') {
    return new UnstorableValueError('', 'invalid', 'Text holding the NUL character (\\u0000) cannot be stored in PostgreSQL');
  }
  if (e?.code === '54000') return new UnstorableValueError('', 'too_long', `A value is too large for PostgreSQL: ${e.message}`);
  return toUnavailable(err);
}

function checkKeys(doc: unknown): void {
  try {
    checkObject(doc);
  } catch (err) {
    throw new UnstorableValueError('', 'format', (err as Error).message);
  }
}

const toJson = (doc: Doc) => JSON.stringify(doc);
/** How long a store trusts its list of ordered indexes (PgDocStore.orderedFields). */
const ORDERED_TTL_MS = 10_000;

export class PgDatabase {
  private stores = new Map<string, Promise<PgDocStore>>();
  private closed = false;
  /** Connections that hold the advisory locks of `exclusive` sections, apart from the pool that
   *  runs queries: a section's own queries never wait for a connection held by a section. */
  private lockPool: pg.Pool | undefined;
  /** In-process tails of `exclusive` sections by key: one connection per key at a time. */
  private readonly sections = new KeyedSections();
  /** The last exact totals of lists, per store table and filter (count-cache.ts). */
  readonly counts = new CountCache();
  /** Told of each store table this process wrote to, once the write is final (committed or
   *  undone): the relay passes it on to the other processes, which forget their totals of it. */
  onWritten?: (table: string) => void;

  private constructor(readonly pool: pg.Pool, readonly url: string) {}

  /** Connects, checks and migrates (connection.ts); fails with a one-line DatabaseError. */
  static async open(url: string, options?: PgOptions): Promise<PgDatabase> {
    return new PgDatabase(await openDatabase(url, options), url);
  }

  /** Runs one statement. `name` makes it a prepared statement of each connection (parsed and
   *  planned once per connection, not on every call): for the fixed statements run most often,
   *  whose text never changes for a name. */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[], on: Queryable = this.pool, name?: string): Promise<pg.QueryResult<R>> {
    if (this.closed) throw new StoreUnavailableError('The database connection is closed');
    // Inside a write group (an atomic batch): on the group's transaction.
    const group = on === this.pool ? activeWriteGroup() : undefined;
    try {
      if (group) return await this.groupTx(group).query<R>(text, values, name);
      return await (name ? on.query<R>({ name, text, values }) : on.query<R>(text, values));
    } catch (err) {
      throw translatePgError(err);
    }
  }

  private groupTx(group: NonNullable<ReturnType<typeof activeWriteGroup>>): PgGroupTx {
    return group.participant(this, () => new PgGroupTx(this.pool, (tables) => { for (const t of tables) this.wrote(t); }));
  }

  /** Store table `table` was written to (or may have been: the statement failed): its totals
   *  are forgotten now and, inside a write group, again when the group ends (its transaction is
   *  committed or rolled back only then); the other processes are told once it is final. */
  wrote(table: string): void {
    this.counts.written(table);
    const group = activeWriteGroup();
    if (group) { this.groupTx(group).touched.add(table); return; }
    this.onWritten?.(table);
  }

  /** Runs `fn` in one transaction (rolled back if it throws). */
  async tx<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreUnavailableError('The database connection is closed');
    const group = activeWriteGroup();
    if (group) {
      try { return await this.groupTx(group).nested(fn); } catch (err) { throw translatePgError(err); }
    }
    let client: pg.PoolClient;
    try { client = await this.pool.connect(); } catch (err) { throw translatePgError(err); }
    try {
      await client.query('BEGIN');
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw translatePgError(err);
    } finally {
      client.release();
    }
  }

  /** Runs `fn` alone among the sections on (`scope`, `key`), in this process and across every
   *  process on this database (a session-level advisory lock, released when `fn` ends or, if
   *  this process dies, when its connection closes). */
  exclusive<T>(scope: string, key: string, fn: () => Promise<T> | T): Promise<T> {
    return this.sections.run(`${scope}\u0000${key}`, async () => {
      if (this.closed) throw new StoreUnavailableError('The database connection is closed');
      this.lockPool ??= newLockPool(this.pool);
      let client: pg.PoolClient;
      try { client = await this.lockPool.connect(); } catch (err) { throw translatePgError(err); }
      let broken = false;
      try {
        try { await client.query({ name: 'hb_lock', text: 'SELECT pg_advisory_lock(hashtext($1), hashtext($2))', values: [scope, key] }); } catch (err) { broken = true; throw translatePgError(err); }
        try {
          return await fn();
        } finally {
          await client.query({ name: 'hb_unlock', text: 'SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', values: [scope, key] }).catch(() => { broken = true; });
        }
      } finally {
        client.release(broken);
      }
    });
  }


  /** A store of a workspace, its table created on first use (by whichever process comes first). */
  store(workspace: string, name: string): Promise<PgDocStore> {
    const key = `${workspace}\u0000${name}`;
    let s = this.stores.get(key);
    if (!s) {
      s = this.openStore(workspace, name);
      s.catch(() => this.stores.delete(key));
      this.stores.set(key, s);
    }
    return s;
  }

  private async openStore(workspace: string, name: string): Promise<PgDocStore> {
    const find = async (on: Queryable) => (await this.query<{ table_name: string }>(
      'SELECT table_name FROM homebase_stores WHERE workspace = $1 AND name = $2', [workspace, name], on)).rows[0]?.table_name;
    const existing = await find(this.pool);
    if (existing) return new PgDocStore(this, existing);
    const table = await this.tx((c) => this.createStoreTable(c, workspace, name));
    return new PgDocStore(this, table);
  }

  /** Creates a store's table within transaction `c` (or finds the one another process created
   *  meanwhile); resolves to its name. */
  async createStoreTable(c: pg.PoolClient, workspace: string, name: string): Promise<string> {
    // One creator at a time per store name, across processes.
    await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`homebase-store:${workspace}/${name}`]);
    const again = (await c.query<{ table_name: string }>('SELECT table_name FROM homebase_stores WHERE workspace = $1 AND name = $2', [workspace, name])).rows[0]?.table_name;
    if (again) return again;
    const t = await this.newStoreName(c);
    for (const sql of storeTableSql(t)) await c.query(sql);
    await c.query('INSERT INTO homebase_stores (workspace, name, table_name) VALUES ($1, $2, $3)', [workspace, name, t]);
    return t;
  }

  /** A fresh name for a store table. */
  async newStoreName(c: pg.PoolClient): Promise<string> {
    return `hb_s_${(await c.query<{ n: string }>(`SELECT nextval('homebase_store_seq') AS n`)).rows[0].n}`;
  }

  /** Names of a workspace's stores. */
  async storeNames(workspace: string): Promise<string[]> {
    return (await this.query<{ name: string }>('SELECT name FROM homebase_stores WHERE workspace = $1 ORDER BY name', [workspace])).rows.map((r) => r.name);
  }

  /** Drops a store's table (its indexes go with it), in one transaction. */
  async dropStore(workspace: string, name: string): Promise<void> {
    this.stores.delete(`${workspace}\u0000${name}`);
    await this.tx(async (c) => {
      const row = (await c.query<{ table_name: string }>('DELETE FROM homebase_stores WHERE workspace = $1 AND name = $2 RETURNING table_name', [workspace, name])).rows[0];
      if (row) await c.query(`DROP TABLE IF EXISTS ${row.table_name}`);
    });
  }

  /** Forgets cached store handles (another process may have dropped or recreated tables). */
  forget(workspace: string): void {
    this.counts.forgetAll();
    for (const key of [...this.stores.keys()]) if (key.startsWith(`${workspace}\u0000`)) this.stores.delete(key);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.lockPool?.end();
    await this.pool.end();
  }
}

export class PgDocStore implements Store {
  constructor(private readonly db: PgDatabase, readonly table: string) {}

  /** Fields with ordered indexes (a user index on the field alone), as last read, and when. */
  private ordered?: { fields: Set<string>; at: number };

  /** The fields whose one-key sorts read only the page from their ordered indexes. Read again
   *  after this process changes the indexes, and at least every ORDERED_TTL_MS (another process
   *  may have changed them: until then a page is read the slower way, or, for an index just
   *  dropped elsewhere, with a plan that finds no index to read; both answer the same). */
  private async orderedFields(): Promise<Set<string>> {
    if (this.ordered && performance.now() - this.ordered.at < ORDERED_TTL_MS) return this.ordered.fields;
    const rows = (await this.db.query<{ field_name: string }>(
      `SELECT field_name FROM homebase_indexes WHERE table_name = $1 AND strpos(field_name, ',') = 0`, [this.table])).rows;
    this.ordered = { fields: new Set(rows.map((r) => r.field_name)), at: performance.now() };
    return this.ordered.fields;
  }

  async get(id: string): Promise<Doc | undefined> {
    // No stored id holds NUL (PostgreSQL text cannot): such a read finds nothing, as on the
    // embedded driver, instead of PostgreSQL's encoding error.
    if (typeof id !== 'string' || id.includes('\u0000')) return undefined;
    return (await this.db.query<{ doc: Doc }>(`SELECT doc FROM ${this.table} WHERE id = $1`, [id], undefined, `${this.table}_get`)).rows[0]?.doc;
  }

  async getWith(id: string, others: Array<[Store, string]>): Promise<Array<Doc | undefined>> {
    const reads: Array<[Store, string]> = [[this, id], ...others];
    // Stores of another database (or driver) are read on their own.
    if (reads.some(([s, i]) => !(s instanceof PgDocStore) || s.db !== this.db || typeof i !== 'string')) {
      return Promise.all(reads.map(([s, i]) => s.get(i)));
    }
    const columns = reads.map(([s], k) => `(SELECT doc FROM ${(s as PgDocStore).table} WHERE id = $${k + 1}) AS d${k}`);
    const row = (await this.db.query<Record<string, Doc | null>>(`SELECT ${columns.join(', ')}`, reads.map(([, i]) => i))).rows[0];
    return reads.map((_, k) => row[`d${k}`] ?? undefined);
  }

  async find(q: StoreQuery): Promise<QueryResult> {
    const { page, count } = listSql(this.table, q, q.sort.length === 1 || q.window ? await this.orderedFields() : undefined);
    // Inside a write group a list sees the group's own writes, which nobody else may see yet.
    const counts = activeWriteGroup() ? undefined : this.db.counts;
    const key = `${count.text}\u0000${JSON.stringify(count.values)}`;
    let total = q.skipTotal ? -1 : counts?.get(this.table, key);
    if (!page) return { data: [], total: total ?? await this.countOf(count, key, counts) };
    if (total !== undefined && total >= 0 && total <= q.offset && !q.window) return { data: [], total };
    const stamp = counts?.stamp(this.table) ?? '';
    let data = (await this.db.query<{ doc: Doc }>(page.text, page.values)).rows.map((r) => r.doc);
    if (total === undefined) {
      // A page that ends the list says how long the list is, from the same reading: no count.
      const ends = q.window
        ? !q.window.seek && !q.window.backward && q.offset === 0 && data.length <= q.limit
        : data.length < q.limit && (data.length > 0 || q.offset === 0);
      if (ends) {
        total = q.offset + data.length;
        counts?.set(this.table, key, total, stamp);
      } else {
        total = await this.countOf(count, key, counts);
      }
    }
    if (q.window) data = finishWindow(q, windowKeys(q.sort.length ? q.sort : DEFAULT_SORT, q.window.backward), data);
    return { data: q.fields ? data.map((d) => project(d, q.fields!)) : data, total };
  }

  /** Counts a list's matches, keeping the figure for the next list with the same filter. */
  private async countOf(count: { text: string; values: unknown[] }, key: string, counts: CountCache | undefined): Promise<number> {
    const stamp = counts?.stamp(this.table);
    const n = (await this.db.query<{ n: number }>(count.text, count.values)).rows[0].n;
    if (stamp !== undefined) counts!.set(this.table, key, n, stamp);
    return n;
  }

  /** Runs a write statement (or several), telling the database handle the table changed when
   *  it is over, whatever its outcome. */
  private async writing<T>(fn: () => Promise<T>): Promise<T> {
    try { return await fn(); } finally { this.db.wrote(this.table); }
  }

  async findBy(path: string, value: unknown): Promise<Doc[]> {
    const p = new Params();
    const where = whereSql([{ path, op: '$eq', values: [value] }], p);
    return (await this.db.query<{ doc: Doc }>(`SELECT doc FROM ${this.table} ${where} ORDER BY id`, p.values)).rows.map((r) => r.doc);
  }

  async all(): Promise<Doc[]> {
    return (await this.db.query<{ doc: Doc }>(`SELECT doc FROM ${this.table} ORDER BY id`)).rows.map((r) => r.doc);
  }

  async count(): Promise<number> {
    return (await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table}`)).rows[0].n;
  }

  async insert(doc: Doc): Promise<Doc> {
    checkKeys(doc);
    const row = (await this.writing(() => this.db.query<{ doc: Doc }>(`INSERT INTO ${this.table} (id, doc) VALUES ($1, $2::jsonb) RETURNING doc`, [doc._id, toJson(doc)], undefined, `${this.table}_ins`))).rows[0];
    return row.doc;
  }

  async insertMany(docs: Doc[], on?: pg.PoolClient): Promise<void> {
    if (docs.length === 0) return;
    for (const d of docs) checkKeys(d);
    const run = async (c: pg.PoolClient) => {
      // In batches through jsonb_array_elements: one statement per 1,000 documents.
      for (let i = 0; i < docs.length; i += 1000) {
        const batch = docs.slice(i, i + 1000);
        await c.query(`INSERT INTO ${this.table} (id, doc) SELECT d ->> '_id', d FROM jsonb_array_elements($1::jsonb) AS t(d)`, [JSON.stringify(batch)]);
      }
    };
    if (on) await run(on);
    else await this.writing(() => this.db.tx(run));
  }

  async replace(id: string, doc: Doc): Promise<Doc | undefined> {
    const next = { ...doc, _id: id };
    checkKeys(next);
    return (await this.writing(() => this.db.query<{ doc: Doc }>(`UPDATE ${this.table} SET doc = $2::jsonb WHERE id = $1 RETURNING doc`, [id, toJson(next)], undefined, `${this.table}_upd`))).rows[0]?.doc;
  }

  async remove(id: string): Promise<boolean> {
    return ((await this.writing(() => this.db.query(`DELETE FROM ${this.table} WHERE id = $1`, [id], undefined, `${this.table}_del`))).rowCount ?? 0) > 0;
  }

  async removeWhere(conditions: Condition[]): Promise<number> {
    const p = new Params();
    return (await this.writing(() => this.db.query(`DELETE FROM ${this.table} ${whereSql(conditions, p)}`, p.values))).rowCount ?? 0;
  }

  /** Swaps the content in one transaction: readers see the old content until it commits, and a
   *  unique violation leaves it as it was. */
  async replaceAll(docs: Doc[]): Promise<void> {
    for (const d of docs) checkKeys(d);
    await this.writing(() => this.db.tx(async (c) => {
      await c.query(`DELETE FROM ${this.table}`);
      await this.insertMany(docs, c);
    }));
  }

  exclusive<T>(key: string, fn: () => Promise<T> | T): Promise<T> {
    return this.db.exclusive(this.table, key, fn);
  }

  /** A read-modify-write of one document under `exclusive(id)`: every process updating it
   *  through here applies its change to the previous one's result. */
  update(id: string, change: (current: Doc) => Doc | undefined | Promise<Doc | undefined>): Promise<Doc | undefined> {
    return this.exclusive(id, async () => {
      const current = await this.get(id);
      if (!current) return undefined;
      const next = await change(current);
      return next ? this.replace(id, next) : undefined;
    });
  }

  async ensureIndex(spec: IndexSpec): Promise<void> {
    const key = indexKeyOf(spec.fieldName);
    if (key === '_id' || key === 'createdAt') return;
    const fields = key.split(',');
    for (const f of fields) pathExpr(f); // refuses a path that is not one
    await this.db.tx(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`homebase-index:${this.table}`]);
      const have = (await c.query<{ is_unique: boolean }>('SELECT is_unique FROM homebase_indexes WHERE table_name = $1 AND field_name = $2', [this.table, key])).rows[0];
      if (have && have.is_unique === !!spec.unique) return;
      if (have) await this.dropIndexes(c, key);
      await createIndex(c, this.table, key, !!spec.unique);
    });
    this.ordered = undefined;
  }

  async removeIndex(fieldName: string): Promise<void> {
    const key = indexKeyOf(fieldName);
    if (key === '_id' || key === 'createdAt') return;
    await this.db.tx(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`homebase-index:${this.table}`]);
      await this.dropIndexes(c, key);
    });
    this.ordered = undefined;
  }

  async listIndexes(): Promise<Array<{ fieldName: string; unique: boolean }>> {
    const rows = (await this.db.query<{ field_name: string; is_unique: boolean }>(
      'SELECT field_name, is_unique FROM homebase_indexes WHERE table_name = $1 ORDER BY field_name', [this.table])).rows;
    return [{ fieldName: 'createdAt', unique: false }, ...rows.map((r) => ({ fieldName: r.field_name, unique: r.is_unique }))];
  }

  async drop(): Promise<void> {
    await this.writing(() => this.db.tx(async (c) => {
      await c.query('DELETE FROM homebase_stores WHERE table_name = $1', [this.table]);
      await c.query(`DROP TABLE IF EXISTS ${this.table}`);
    }));
  }

  private dropIndexes(c: pg.PoolClient, key: string): Promise<void> {
    return dropIndex(c, this.table, key);
  }
}

/** Creates the index on `key` (fields joined by commas) of a store table, within transaction
 *  `c`, and records it in homebase_indexes. */
export async function createIndex(c: pg.PoolClient, table: string, key: string, unique: boolean): Promise<void> {
  const name = indexName(table, key);
  const fields = key.split(',');
  // Lookups: a GIN index over the digests of the equality keys of each field.
  for (const [i, f] of fields.entries()) await c.query(`CREATE INDEX ${name}_k${i} ON ${table} USING gin (${hashKeysExpr(f)})`);
  // Unique: enforced by PostgreSQL itself, across every process writing to the table. A
  // document lacking a field is not indexed (SQL NULL), as the embedded stores' sparse index.
  if (unique) await c.query(`CREATE UNIQUE INDEX ${name}_u ON ${table} (${fields.map((f) => `md5((${pathExpr(f)})::text)`).join(', ')})`);
  // Sorts: lists sorted by the field read a page in order instead of sorting every match.
  for (const sql of orderedIndexesSql(table, key)) await c.query(sql);
  await c.query('INSERT INTO homebase_indexes (table_name, field_name, is_unique) VALUES ($1, $2, $3)', [table, key, unique]);
}

/** Drops the index on `key` of a store table within transaction `c`. */
export async function dropIndex(c: pg.PoolClient, table: string, key: string): Promise<void> {
  const name = indexName(table, key);
  for (let i = 0; i < key.split(',').length; i++) await c.query(`DROP INDEX IF EXISTS ${name}_k${i}`);
  await c.query(`DROP INDEX IF EXISTS ${name}_u`);
  for (const suffix of ['s', 'sa', 'sd', 'sx']) await c.query(`DROP INDEX IF EXISTS ${name}_${suffix}`);
  await c.query('DELETE FROM homebase_indexes WHERE table_name = $1 AND field_name = $2', [table, key]);
}

/** The statements that create a store table named `table` (empty) with its primary key and the
 *  index on the sort key of `createdAt`. `withKey` false leaves the primary key for later (a
 *  table filled in bulk builds its index once, after the rows are in). */
export function storeTableSql(table: string, withKey = true): string[] {
  return [
    `CREATE TABLE ${table} (id text COLLATE "C" ${withKey ? 'PRIMARY KEY' : 'NOT NULL'}, doc jsonb NOT NULL)`,
    // Lists are ordered by createdAt by default: an index on its sort key answers a page
    // without sorting the whole store.
    ...(withKey ? [createdIndexSql(table)] : []),
  ];
}

export const createdIndexSql = (table: string) => `CREATE INDEX ${table}_created ON ${table} (${sortExprs('createdAt').join(', ')}, id)`;

/** The pool of lock connections: same server and credentials as the query pool. */
function newLockPool(pool: pg.Pool): pg.Pool {
  const o = pool.options;
  const locks = new (pool.constructor as typeof pg.Pool)({ ...o, max: 20, application_name: 'homebase-locks' });
  guardClients(locks);
  return locks;
}

function indexKeyOf(fieldName: string): string {
  return fieldName.includes(',') ? fieldName.split(',').sort().join(',') : fieldName;
}
