// Snapshots of a workspace's stores inside PostgreSQL: taking one copies each store table
// (CREATE TABLE ... AS, in one REPEATABLE READ transaction, so it is one moment of the
// workspace); restoring writes back only what differs (rows changed or deleted since are
// replaced, rows added since are removed, stores created since are dropped), all in one
// transaction: other processes see the workspace before or after, never between.
import type pg from 'pg';
import { NotFoundError, UniqueViolationError } from '../errors.js';
import type { PgDatabase } from './pg-store.js';
import { sortExprs } from './sql-query.js';

export interface DbSnapshotInfo { name: string; createdAt: string; stores: number; records: number }

async function storeTables(c: pg.PoolClient, workspace: string): Promise<Map<string, string>> {
  const { rows } = await c.query<{ name: string; table_name: string }>('SELECT name, table_name FROM homebase_stores WHERE workspace = $1', [workspace]);
  return new Map(rows.map((r) => [r.name, r.table_name]));
}

async function dropSnapshot(c: pg.PoolClient, id: string): Promise<void> {
  const { rows } = await c.query<{ table_name: string }>('SELECT table_name FROM homebase_snapshot_tables WHERE snapshot_id = $1', [id]);
  for (const r of rows) await c.query(`DROP TABLE IF EXISTS ${r.table_name}`);
  await c.query('DELETE FROM homebase_snapshots WHERE id = $1', [id]);
}

/** Takes a snapshot named `name`; 409 when it exists, unless `overwrite`. */
export async function takeDbSnapshot(db: PgDatabase, workspace: string, name: string, overwrite = false): Promise<DbSnapshotInfo> {
  return db.tx(async (c) => {
    await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`homebase-snapshot:${workspace}`]);
    const existing = (await c.query<{ id: string }>('SELECT id FROM homebase_snapshots WHERE workspace = $1 AND name = $2', [workspace, name])).rows[0];
    if (existing && !overwrite) throw new UniqueViolationError(`A snapshot named '${name}' already exists`, { field: 'name' });
    if (existing) await dropSnapshot(c, existing.id);
    const id = (await c.query<{ id: string; created_at: Date }>('INSERT INTO homebase_snapshots (workspace, name) VALUES ($1, $2) RETURNING id, created_at', [workspace, name])).rows[0];
    let records = 0;
    const tables = await storeTables(c, workspace);
    for (const [store, table] of tables) {
      const copy = `${table}_snap_${id.id}`;
      records += (await c.query(`CREATE TABLE ${copy} AS SELECT id, doc FROM ${table}`)).rowCount ?? 0;
      await c.query(`ALTER TABLE ${copy} ADD PRIMARY KEY (id)`);
      await c.query('INSERT INTO homebase_snapshot_tables (snapshot_id, store_name, table_name) VALUES ($1, $2, $3)', [id.id, store, copy]);
    }
    return { name, createdAt: id.created_at.toISOString(), stores: tables.size, records };
  });
}

/** Restores a snapshot: 404 when there is none by that name. Resolves to the number of rows written. */
export async function restoreDbSnapshot(db: PgDatabase, workspace: string, name: string): Promise<{ written: number }> {
  const out = await db.tx(async (c) => {
    await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`homebase-snapshot:${workspace}`]);
    const snap = (await c.query<{ id: string }>('SELECT id FROM homebase_snapshots WHERE workspace = $1 AND name = $2', [workspace, name])).rows[0];
    if (!snap) throw new NotFoundError('Snapshot', name);
    const saved = new Map((await c.query<{ store_name: string; table_name: string }>(
      'SELECT store_name, table_name FROM homebase_snapshot_tables WHERE snapshot_id = $1', [snap.id])).rows.map((r) => [r.store_name, r.table_name]));
    const live = await storeTables(c, workspace);
    let written = 0;
    for (const [store, table] of live) {
      const copy = saved.get(store);
      if (!copy) { // created after the snapshot
        await c.query('DELETE FROM homebase_stores WHERE table_name = $1', [table]);
        await c.query(`DROP TABLE ${table}`);
        continue;
      }
      written += (await c.query(`DELETE FROM ${table} t WHERE NOT EXISTS (SELECT 1 FROM ${copy} s WHERE s.id = t.id AND s.doc = t.doc)`)).rowCount ?? 0;
      written += (await c.query(`INSERT INTO ${table} (id, doc) SELECT s.id, s.doc FROM ${copy} s WHERE NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.id = s.id)`)).rowCount ?? 0;
    }
    for (const [store, copy] of saved) {
      if (live.has(store)) continue;
      // A store dropped since (a deleted collection): recreated from the copy.
      const t = `hb_s_${(await c.query<{ n: string }>(`SELECT nextval('homebase_store_seq') AS n`)).rows[0].n}`;
      await c.query(`CREATE TABLE ${t} (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL)`);
      await c.query(`CREATE INDEX ${t}_created ON ${t} (${sortExprs('createdAt').join(', ')}, id)`);
      await c.query('INSERT INTO homebase_stores (workspace, name, table_name) VALUES ($1, $2, $3)', [workspace, store, t]);
      written += (await c.query(`INSERT INTO ${t} (id, doc) SELECT id, doc FROM ${copy}`)).rowCount ?? 0;
    }
    return { written };
  });
  db.forget(workspace); // store handles of dropped or recreated tables
  return out;
}

export async function listDbSnapshots(db: PgDatabase, workspace: string): Promise<Array<{ name: string; createdAt: string }>> {
  const { rows } = await db.query<{ name: string; created_at: Date }>('SELECT name, created_at FROM homebase_snapshots WHERE workspace = $1 ORDER BY created_at, name', [workspace]);
  return rows.map((r) => ({ name: r.name, createdAt: r.created_at.toISOString() }));
}

export async function deleteDbSnapshot(db: PgDatabase, workspace: string, name: string): Promise<void> {
  await db.tx(async (c) => {
    const snap = (await c.query<{ id: string }>('SELECT id FROM homebase_snapshots WHERE workspace = $1 AND name = $2', [workspace, name])).rows[0];
    if (!snap) throw new NotFoundError('Snapshot', name);
    await dropSnapshot(c, snap.id);
  });
}
