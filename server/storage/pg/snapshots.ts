// Snapshots of a workspace's stores inside PostgreSQL. Taking one copies each store table
// (CREATE TABLE ... AS, in one REPEATABLE READ transaction, so it is one moment of the
// workspace) and saves the workspace's settings row beside the copies. Restoring, all in one
// transaction (other processes see the workspace before or after, never between):
//  - a store that differs by a few rows gets back only those rows (rows changed or deleted
//    since are replaced, rows added since are removed);
//  - a store rewritten since (more than REBUILD_ABOVE rows differ) is rebuilt: a fresh table
//    filled from the copy in one INSERT ... SELECT, its primary key and indexes built once over
//    the rows (far cheaper than one index update per row), and put in place under the live
//    table's name, so every handle on it stays good;
//  - either way the store ends with the snapshot's unique indexes exactly, and its lookup
//    indexes plus those added since (the database module adds the indexes a schema wants on
//    first use, often after the snapshot was taken: dropping them would only have it build them
//    again);
//  - stores created since are dropped, stores dropped since come back;
//  - the settings row gets the snapshot's settings.
import type pg from 'pg';
import { NotFoundError, UniqueViolationError } from '../errors.js';
import { createIndex, createdIndexSql, dropIndex, storeTableSql } from './store-tables.js';
import type { PgDatabase } from './database.js';
import { SETTINGS_LOCK } from './workspaces.js';

/** Rows to write back above which a store is rebuilt from its copy rather than patched. */
const REBUILD_ABOVE = 1000;

interface IndexRow { field_name: string; is_unique: boolean }

export interface DbSnapshot<S = unknown, I = unknown> {
  name: string;
  createdAt: string;
  /** Rows per store copied. */
  counts: Record<string, number>;
  /** The workspace's settings when taken (homebase_workspaces.settings; null when it has no row). */
  settings: S | null;
  /** What `describe` made of it when taken. */
  info: I | null;
  filesDir: string | null;
}

export interface TakeOptions<S, I> {
  overwrite?: boolean;
  /** Stores left out (sessions outlive restores). */
  skip?: ReadonlySet<string>;
  /** A folder, named by the caller, holding what lives outside the database (file copies). */
  filesDir?: string;
  /** The figures to keep with the snapshot (the API answers with them). */
  describe?: (counts: Record<string, number>, settings: S | null) => I;
  /** Settings keys that are not content (a workspace's clock and faults): left out of the
   *  snapshot, and kept as they are by a restore. */
  keepSettings?: readonly string[];
}

export interface TakeResult<S, I> extends DbSnapshot<S, I> {
  /** The files folder of the snapshot it replaced (overwrite), for the caller to remove. */
  replacedFilesDir: string | null;
}

async function storeTables(c: pg.PoolClient, workspace: string): Promise<Map<string, string>> {
  const { rows } = await c.query<{ name: string; table_name: string }>('SELECT name, table_name FROM homebase_stores WHERE workspace = $1', [workspace]);
  return new Map(rows.map((r) => [r.name, r.table_name]));
}

async function indexesOf(c: pg.PoolClient, table: string): Promise<IndexRow[]> {
  return (await c.query<IndexRow>('SELECT field_name, is_unique FROM homebase_indexes WHERE table_name = $1 ORDER BY field_name', [table])).rows;
}

/** The indexes a restored store ends with: the snapshot's, and the live table's lookup indexes on
 *  other fields. */
function wantedIndexes(saved: IndexRow[], live: IndexRow[]): IndexRow[] {
  const fields = new Set(saved.map((x) => x.field_name));
  return [...saved, ...live.filter((x) => !x.is_unique && !fields.has(x.field_name))];
}

const has = (xs: IndexRow[], x: IndexRow) => xs.some((y) => y.field_name === x.field_name && y.is_unique === x.is_unique);

/** Drops a snapshot's table copies and row; resolves to its files folder. */
async function dropSnapshot(c: pg.PoolClient, id: string): Promise<string | null> {
  const { rows } = await c.query<{ table_name: string }>('SELECT table_name FROM homebase_snapshot_tables WHERE snapshot_id = $1', [id]);
  for (const r of rows) await c.query(`DROP TABLE IF EXISTS ${r.table_name}`);
  return (await c.query<{ files_dir: string | null }>('DELETE FROM homebase_snapshots WHERE id = $1 RETURNING files_dir', [id])).rows[0]?.files_dir ?? null;
}

const lockSnapshots = (c: pg.PoolClient, workspace: string) => c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`homebase-snapshot:${workspace}`]);

/** Whether a snapshot named `name` exists. */
export async function hasDbSnapshot(db: PgDatabase, workspace: string, name: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM homebase_snapshots WHERE workspace = $1 AND name = $2', [workspace, name])).rowCount! > 0;
}

/** Takes a snapshot named `name`; 409 when it exists, unless `overwrite`. */
export async function takeDbSnapshot<S = unknown, I = unknown>(db: PgDatabase, workspace: string, name: string, options: TakeOptions<S, I> = {}): Promise<TakeResult<S, I>> {
  return db.tx(async (c) => {
    await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await lockSnapshots(c, workspace);
    const existing = (await c.query<{ id: string }>('SELECT id FROM homebase_snapshots WHERE workspace = $1 AND name = $2', [workspace, name])).rows[0];
    if (existing && !options.overwrite) throw new UniqueViolationError(`Snapshot '${name}' already exists`, { field: 'name' });
    const replacedFilesDir = existing ? await dropSnapshot(c, existing.id) : null;
    const live = (await c.query<{ settings: S }>('SELECT settings FROM homebase_workspaces WHERE id = $1', [workspace])).rows[0]?.settings ?? null;
    const settings = live === null ? null : withoutKeys(live, options.keepSettings);
    const snap = (await c.query<{ id: string; created_at: Date }>('INSERT INTO homebase_snapshots (workspace, name, settings, files_dir) VALUES ($1, $2, $3::jsonb, $4) RETURNING id, created_at',
      [workspace, name, settings === null ? null : JSON.stringify(settings), options.filesDir ?? null])).rows[0];
    const counts: Record<string, number> = {};
    for (const [store, table] of await storeTables(c, workspace)) {
      if (options.skip?.has(store)) continue;
      const copy = `${table}_snap_${snap.id}`;
      counts[store] = (await c.query(`CREATE TABLE ${copy} AS SELECT id, doc FROM ${table}`)).rowCount ?? 0;
      await c.query(`ALTER TABLE ${copy} ADD PRIMARY KEY (id)`);
      await c.query('INSERT INTO homebase_snapshot_tables (snapshot_id, store_name, table_name, indexes) VALUES ($1, $2, $3, $4::jsonb)',
        [snap.id, store, copy, JSON.stringify(await indexesOf(c, table))]);
    }
    const info = options.describe ? options.describe(counts, settings) : null;
    if (info !== null) await c.query('UPDATE homebase_snapshots SET info = $2::jsonb WHERE id = $1', [snap.id, JSON.stringify(info)]);
    return { name, createdAt: snap.created_at.toISOString(), counts, settings, info, filesDir: options.filesDir ?? null, replacedFilesDir };
  });
}

export interface RestoreResult<S, I> {
  createdAt: string;
  settings: S | null;
  info: I | null;
  filesDir: string | null;
  /** Rows written back by patching stores. */
  written: number;
  /** Stores rebuilt from their copy (or brought back). */
  rebuilt: number;
}

/** Restores a snapshot: 404 when there is none by that name. Stores in `skip` are left as they are. */
export async function restoreDbSnapshot<S = unknown, I = unknown>(db: PgDatabase, workspace: string, name: string, options: { skip?: ReadonlySet<string>; keepSettings?: readonly string[] } = {}): Promise<RestoreResult<S, I>> {
  try {
    return await db.tx(async (c) => {
      // The settings' lock too, first (a schema change under way in another process holds it
      // while it touches tables): the settings are never written between its read and write.
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1)), pg_advisory_xact_lock(hashtext($2), hashtext($3))',
        [`homebase-snapshot:${workspace}`, SETTINGS_LOCK, workspace]);
      // The snapshot, its copies and the live stores with their indexes: one round trip.
      const snap = (await c.query<{ id: string; created_at: Date; settings: S | null; info: I | null; files_dir: string | null;
        saved: Array<{ store_name: string; table_name: string; indexes: IndexRow[] }>; live: Array<{ name: string; table_name: string; indexes: IndexRow[] }> }>(`
        SELECT s.id, s.created_at, s.settings, s.info, s.files_dir,
          (SELECT coalesce(json_agg(json_build_object('store_name', t.store_name, 'table_name', t.table_name, 'indexes', t.indexes)), '[]')
            FROM homebase_snapshot_tables t WHERE t.snapshot_id = s.id) AS saved,
          (SELECT coalesce(json_agg(json_build_object('name', st.name, 'table_name', st.table_name, 'indexes',
              (SELECT coalesce(json_agg(json_build_object('field_name', i.field_name, 'is_unique', i.is_unique)), '[]') FROM homebase_indexes i WHERE i.table_name = st.table_name))), '[]')
            FROM homebase_stores st WHERE st.workspace = $1) AS live
        FROM homebase_snapshots s WHERE s.workspace = $1 AND s.name = $2`, [workspace, name])).rows[0];
      if (!snap) throw new NotFoundError('Snapshot', name);
      const saved = snap.saved;
      const savedStores = new Set(saved.map((x) => x.store_name));
      const live = new Map(snap.live.map((x) => [x.name, x.table_name]));
      const liveIndexes = new Map(snap.live.map((x) => [x.table_name, x.indexes]));
      let written = 0;
      let rebuilt = 0;
      for (const [store, table] of live) {
        if (savedStores.has(store) || options.skip?.has(store)) continue;
        // Created after the snapshot.
        await c.query('DELETE FROM homebase_stores WHERE table_name = $1', [table]);
        await c.query(`DROP TABLE ${table}`);
      }
      // Plan each store: patched in place when it is there, else rebuilt.
      const plans: Array<{ store: string; copy: string; table?: string; now: IndexRow[]; want: IndexRow[] }> = [];
      for (const { store_name: store, table_name: copy, indexes } of saved) {
        if (options.skip?.has(store)) continue;
        const table = live.get(store);
        const now = table ? liveIndexes.get(table) ?? [] : [];
        const want = wantedIndexes(indexes, now);
        // Indexes the snapshot lacks go first, so that no row written back can trip them.
        if (table) for (const ix of now) if (!has(want, ix)) await dropIndex(c, table, ix.field_name);
        plans.push({ store, copy, table, now, want });
      }
      // Rows differing from the copy go, and the copy's rows then missing are counted: one
      // statement per store, all stores in one round trip (the SELECT sees the table as before
      // the DELETE, hence the second test).
      const patched = plans.filter((p) => p.table);
      const diffs = await multi<{ removed: number; missing: number }>(c, patched.map(({ table, copy }) => `
        WITH gone AS (DELETE FROM ${table} t WHERE NOT EXISTS (SELECT 1 FROM ${copy} s WHERE s.id = t.id AND s.doc = t.doc) RETURNING t.id)
        SELECT (SELECT count(*) FROM gone)::int AS removed,
          (SELECT count(*) FROM ${copy} s WHERE NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.id = s.id) OR s.id IN (SELECT id FROM gone))::int AS missing`));
      const done = new Set<typeof plans[number]>();
      const inserts: string[] = [];
      for (const [i, p] of patched.entries()) {
        const { removed, missing } = diffs[i];
        if (removed + missing > REBUILD_ABOVE) continue;
        done.add(p);
        written += removed + missing;
        if (missing > 0) inserts.push(`INSERT INTO ${p.table} (id, doc) SELECT s.id, s.doc FROM ${p.copy} s WHERE NOT EXISTS (SELECT 1 FROM ${p.table} t WHERE t.id = s.id)`);
      }
      await multi(c, inserts);
      for (const p of done) for (const ix of p.want) if (!has(p.now, ix)) await createIndex(c, p.table!, ix.field_name, ix.is_unique);
      for (const p of plans) {
        if (done.has(p)) continue;
        await rebuild(db, c, workspace, p.store, p.table, p.copy, p.want);
        rebuilt++;
      }
      let settings = snap.settings;
      if (settings !== null) {
        // Settings that are not content (keepSettings) stay as they are now.
        if (options.keepSettings?.length) {
          const now = (await c.query<{ settings: Record<string, unknown> }>('SELECT settings FROM homebase_workspaces WHERE id = $1', [workspace])).rows[0]?.settings ?? {};
          const merged = withoutKeys(settings, options.keepSettings) as Record<string, unknown>;
          for (const key of options.keepSettings) if (now[key] !== undefined) merged[key] = now[key];
          settings = merged as S;
        }
        await c.query('UPDATE homebase_workspaces SET settings = $2::jsonb WHERE id = $1 AND settings IS DISTINCT FROM $2::jsonb', [workspace, JSON.stringify(settings)]);
      }
      return { createdAt: snap.created_at.toISOString(), settings, info: snap.info, filesDir: snap.files_dir, written, rebuilt };
    });
  } finally {
    db.forget(workspace); // store handles of dropped or recreated tables
  }
}

/** Runs statements without parameters in one round trip; resolves to each one's first row. */
async function multi<R extends pg.QueryResultRow>(c: pg.PoolClient, statements: string[]): Promise<R[]> {
  if (statements.length === 0) return [];
  const out = await c.query<R>(statements.join(';\n')) as unknown as pg.QueryResult<R> | Array<pg.QueryResult<R>>;
  return (Array.isArray(out) ? out : [out]).map((r) => r.rows[0]);
}

/** Rebuilds a store from its copy under the live table's name (`table`; a new table when the
 *  store was dropped since): rows first, then the primary key and indexes, built once. */
async function rebuild(db: PgDatabase, c: pg.PoolClient, workspace: string, store: string, table: string | undefined, copy: string, indexes: IndexRow[]): Promise<void> {
  let t = table;
  if (t) {
    await c.query(`DROP TABLE ${t}`);
    await c.query('DELETE FROM homebase_indexes WHERE table_name = $1', [t]);
  } else {
    t = await db.newStoreName(c);
    await c.query('INSERT INTO homebase_stores (workspace, name, table_name) VALUES ($1, $2, $3)', [workspace, store, t]);
  }
  for (const sql of storeTableSql(t, false)) await c.query(sql);
  await c.query(`INSERT INTO ${t} (id, doc) SELECT id, doc FROM ${copy}`);
  await c.query(`ALTER TABLE ${t} ADD PRIMARY KEY (id)`);
  await c.query(createdIndexSql(t));
  for (const ix of indexes) await createIndex(c, t, ix.field_name, ix.is_unique);
}

export interface DbSnapshotEntry<I = unknown> { name: string; createdAt: string; info: I | null }

export async function listDbSnapshots<I = unknown>(db: PgDatabase, workspace: string): Promise<Array<DbSnapshotEntry<I>>> {
  const { rows } = await db.query<{ name: string; created_at: Date; info: I | null }>(
    'SELECT name, created_at, info FROM homebase_snapshots WHERE workspace = $1 ORDER BY created_at, name', [workspace]);
  return rows.map((r) => ({ name: r.name, createdAt: r.created_at.toISOString(), info: r.info }));
}

/** Deletes a snapshot (404 when there is none by that name); resolves to its files folder. */
export async function deleteDbSnapshot(db: PgDatabase, workspace: string, name: string): Promise<string | null> {
  return db.tx(async (c) => {
    await lockSnapshots(c, workspace);
    const snap = (await c.query<{ id: string }>('SELECT id FROM homebase_snapshots WHERE workspace = $1 AND name = $2', [workspace, name])).rows[0];
    if (!snap) throw new NotFoundError('Snapshot', name);
    return dropSnapshot(c, snap.id);
  });
}

/** A settings object without some of its keys (those that are not content). */
function withoutKeys<S>(settings: S, keys: readonly string[] | undefined): S {
  if (!keys?.length || settings === null || typeof settings !== 'object') return settings;
  const out = { ...(settings as Record<string, unknown>) };
  for (const key of keys) delete out[key];
  return out as S;
}
