// The PostgreSQL driver's database handle: the query pool, transactions, cross-process
// exclusive sections (advisory locks on a pool of their own), the registry of store tables
// (homebase_stores: workspace, name → table) and the cache of list totals (count-cache.ts).
import type pg from 'pg';
import { StoreUnavailableError, UniqueViolationError, UnstorableValueError } from '../errors.js';
import { activeWriteGroup } from '../write-group.js';
import { PgGroupTx } from './group-tx.js';
import { KeyedSections } from '../keyed-sections.js';
import { guardClients, openDatabase, toUnavailable, type PgOptions } from './connection.js';
import { CountCache } from './count-cache.js';
import { ReadBatch } from './read-batch.js';
import { PagePlans } from './page-plans.js';
import { PgDocStore } from './pg-store.js';
import { storeTableSql } from './store-tables.js';
import type { Outbox } from './outbox.js';

export type Queryable = pg.Pool | pg.PoolClient;

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
  /** Reads by id gathered over a turn of the event loop into one statement (read-batch.ts). */
  readonly reads = new ReadBatch((text, values, name) => this.query(text, values, this.pool, name));
  /** Told of each store table this process wrote to, once the write is final (committed or
   *  undone): the relay passes it on to the other processes, which forget their totals of it. */
  onWritten?: (table: string) => void;
  /** Where writes store the events they publish (outbox.ts): set when the server starts on this
   *  database (its events are then dispatched and taken over); absent, writes store none. */
  outbox?: Outbox;

  /** List pages prepared once per connection, with their values (page-plans.ts). */
  private readonly pages: PagePlans;

  private constructor(readonly pool: pg.Pool, readonly url: string) {
    this.pages = new PagePlans(pool);
  }

  /** Closed with the server: every query refuses. */
  get isClosed(): boolean { return this.closed; }

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

  /** The rows of list page `text` (values written in: page-plans.ts inlineValues) from the
   *  connection's prepared plan of it. Not inside a write group: that runs on its transaction. */
  async pageRows<R extends pg.QueryResultRow>(text: string): Promise<R[]> {
    if (this.closed) throw new StoreUnavailableError('The database connection is closed');
    try { return await this.pages.rows<R>(text); } catch (err) { throw translatePgError(err); }
  }

  /** How many list pages were prepared since the start (page-plans.ts; tests, diagnostics). */
  get pagesPrepared(): number { return this.pages.prepared; }

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

/** The pool of lock connections: same server and credentials as the query pool. */
function newLockPool(pool: pg.Pool): pg.Pool {
  const o = pool.options;
  const locks = new (pool.constructor as typeof pg.Pool)({ ...o, max: 20, application_name: 'homebase-locks' });
  guardClients(locks);
  return locks;
}
