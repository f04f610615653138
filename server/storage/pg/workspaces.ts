// What the embedded driver keeps in JSON files, on PostgreSQL: the workspace registry with each
// workspace's settings (schema, first admin, ...) and keys (`homebase_workspaces`), and the
// console token (`homebase_meta`). And the whole-content swap of a workspace (reset, restore,
// import) as one transaction over its store tables and its settings: every process sees the
// workspace before or after, never between.
import type pg from 'pg';
import type { SharedAdapter } from '../settings-store.js';
import { NotFoundError, UniqueViolationError } from '../errors.js';
import type { Doc } from '../query.js';
import { createIndex, createdIndexSql, storeTableSql } from './store-tables.js';
import type { PgDatabase } from './database.js';
import { withoutControls } from '../workspace.js';

/** The scope of the advisory lock a workspace's settings are changed under. */
export const SETTINGS_LOCK = 'homebase-settings';

export interface PgWorkspaceRow<S, K> { id: string; name: string; createdAt: string; settings: S; keys: K }

export class PgWorkspaces {
  /** `settingsWritten`: told after a workspace's settings were written (other processes reload them). */
  constructor(private readonly db: PgDatabase, private readonly settingsWritten?: (id: string) => void) {}

  /** Every workspace, in the order they were created. */
  async list<S, K>(): Promise<Array<PgWorkspaceRow<S, K>>> {
    const { rows } = await this.db.query<{ id: string; name: string; created_at: Date; settings: S; keys: K }>(
      'SELECT id, name, created_at, settings, keys FROM homebase_workspaces ORDER BY position');
    return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at.toISOString(), settings: r.settings, keys: r.keys }));
  }

  async get<S, K>(id: string): Promise<PgWorkspaceRow<S, K> | undefined> {
    const r = (await this.db.query<{ id: string; name: string; created_at: Date; settings: S; keys: K }>(
      'SELECT id, name, created_at, settings, keys FROM homebase_workspaces WHERE id = $1', [id])).rows[0];
    return r && { id: r.id, name: r.name, createdAt: r.created_at.toISOString(), settings: r.settings, keys: r.keys };
  }

  /** Registers a workspace; 409 when one by that id (or differing only in case) exists. */
  async create<S extends { createdAt: string }, K>(id: string, name: string, settings: S, keys: K): Promise<void> {
    await this.db.tx((c) => insertWorkspace(c, id, name, settings, keys));
  }

  /** Creates workspace `id` as a copy of `source` in one transaction (one moment of the
   *  source): each store table but `skip` copied into a new table (rows first, then the primary
   *  key and indexes, built once), the settings row with the fork's name and creation time, and
   *  `keys`. With `snapshot`, the copy is of that snapshot's tables and settings (404 when the
   *  source has none by that name). Resolves to the fork's creation time and, for a snapshot,
   *  the folder its caller keeps the snapshot's uploaded files in. */
  async fork(source: string, id: string, options: { name: string; keys: unknown; skip: ReadonlySet<string>; snapshot?: string }): Promise<{ createdAt: string; snapshotFilesDir: string | null }> {
    try {
      return await this.db.tx(async (c) => {
        await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
        let settings: Record<string, unknown> | null;
        let snapshotFilesDir: string | null = null;
        let tables: Array<{ name: string; table: string; indexes: Array<{ field_name: string; is_unique: boolean }> }>;
        if (options.snapshot !== undefined) {
          const snap = (await c.query<{ id: string; settings: Record<string, unknown> | null; files_dir: string | null }>(
            'SELECT id, settings, files_dir FROM homebase_snapshots WHERE workspace = $1 AND name = $2', [source, options.snapshot])).rows[0];
          if (!snap) throw new NotFoundError('Snapshot', options.snapshot);
          snapshotFilesDir = snap.files_dir;
          settings = snap.settings ?? (await c.query<{ settings: Record<string, unknown> }>('SELECT settings FROM homebase_workspaces WHERE id = $1', [source])).rows[0]?.settings ?? null;
          tables = (await c.query<{ store_name: string; table_name: string; indexes: Array<{ field_name: string; is_unique: boolean }> }>(
            'SELECT store_name, table_name, indexes FROM homebase_snapshot_tables WHERE snapshot_id = $1 ORDER BY store_name', [snap.id])).rows
            .map((r) => ({ name: r.store_name, table: r.table_name, indexes: r.indexes }));
        } else {
          settings = (await c.query<{ settings: Record<string, unknown> }>('SELECT settings FROM homebase_workspaces WHERE id = $1', [source])).rows[0]?.settings ?? null;
          tables = (await c.query<{ name: string; table_name: string; indexes: Array<{ field_name: string; is_unique: boolean }> }>(`
            SELECT st.name, st.table_name, (SELECT coalesce(json_agg(json_build_object('field_name', i.field_name, 'is_unique', i.is_unique)), '[]')
              FROM homebase_indexes i WHERE i.table_name = st.table_name) AS indexes
            FROM homebase_stores st WHERE st.workspace = $1 ORDER BY st.name`, [source])).rows
            .map((r) => ({ name: r.name, table: r.table_name, indexes: r.indexes }));
        }
        if (!settings) throw new NotFoundError('Workspace', source);
        const createdAt = (await c.query<{ now: Date }>('SELECT now() AS now')).rows[0].now.toISOString();
        // The test controls (clock, faults) are no content: the fork starts without them.
        await insertWorkspace(c, id, options.name, { ...withoutControls(settings), name: options.name, createdAt }, options.keys);
        for (const { name, table, indexes } of tables) {
          if (options.skip.has(name)) continue;
          const t = await this.db.newStoreName(c);
          await c.query('INSERT INTO homebase_stores (workspace, name, table_name) VALUES ($1, $2, $3)', [id, name, t]);
          for (const sql of storeTableSql(t, false)) await c.query(sql);
          await c.query(`INSERT INTO ${t} (id, doc) SELECT id, doc FROM ${table}`);
          await c.query(`ALTER TABLE ${t} ADD PRIMARY KEY (id)`);
          await c.query(createdIndexSql(t));
          for (const ix of indexes) await createIndex(c, t, ix.field_name, ix.is_unique);
        }
        return { createdAt, snapshotFilesDir };
      });
    } finally {
      this.db.forget(id);
    }
  }

  /** The idle deadline of a workspace deleted after a time without requests (a fork's `ttl`),
   *  kept beside the registry so that it survives a restart; undefined when it has none. */
  async expiry<E>(id: string): Promise<E | undefined> {
    return (await this.db.query<{ value: E }>('SELECT value FROM homebase_meta WHERE key = $1', [`expiry:${id}`])).rows[0]?.value;
  }

  async setExpiry(id: string, value: unknown): Promise<void> {
    if (value === undefined) { await this.db.query('DELETE FROM homebase_meta WHERE key = $1', [`expiry:${id}`]); return; }
    await this.db.query(`INSERT INTO homebase_meta (key, value) VALUES ($1, $2::jsonb) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
      [`expiry:${id}`, JSON.stringify(value)]);
  }

  /** Deletes a workspace with every store table and snapshot it has, in one transaction. */
  async delete(id: string): Promise<void> {
    await this.db.tx(async (c) => {
      await c.query('DELETE FROM homebase_workspaces WHERE id = $1', [id]);
      await c.query('DELETE FROM homebase_meta WHERE key = $1', [`expiry:${id}`]);
      for (const { table_name } of (await c.query<{ table_name: string }>('DELETE FROM homebase_stores WHERE workspace = $1 RETURNING table_name', [id])).rows) {
        await c.query(`DROP TABLE IF EXISTS ${table_name}`);
      }
      const snaps = await c.query<{ table_name: string }>(
        'SELECT t.table_name FROM homebase_snapshot_tables t JOIN homebase_snapshots s ON s.id = t.snapshot_id WHERE s.workspace = $1', [id]);
      for (const { table_name } of snaps.rows) await c.query(`DROP TABLE IF EXISTS ${table_name}`);
      await c.query('DELETE FROM homebase_snapshots WHERE workspace = $1', [id]);
      await c.query('DELETE FROM homebase_login_attempts WHERE workspace = $1', [id]);
    });
    this.db.forget(id);
  }

  /** lowdb's adapter for one workspace's settings (SettingsStore reads and writes through it).
   *  Every process writes this row: a change holds `lock` (an advisory lock on the workspace's
   *  settings) while it re-reads, changes and writes them, so none is lost. */
  settingsAdapter<S>(id: string): SharedAdapter<S> {
    return {
      lock: (fn) => this.db.exclusive(SETTINGS_LOCK, id, fn),
      read: async () => (await this.db.query<{ settings: S }>('SELECT settings FROM homebase_workspaces WHERE id = $1', [id])).rows[0]?.settings ?? null,
      write: async (data: S) => {
        await this.db.query('UPDATE homebase_workspaces SET settings = $2::jsonb WHERE id = $1', [id, JSON.stringify(data)]);
        this.settingsWritten?.(id);
      },
    };
  }

  /** The console token every process shares: `wanted` when given (it replaces the stored one),
   *  else the stored one, else `fresh` (stored by whichever process comes first). */
  async consoleToken(wanted: string | undefined, fresh: string): Promise<string> {
    if (wanted) {
      await this.db.query(`INSERT INTO homebase_meta (key, value) VALUES ('consoleToken', $1::jsonb)
        ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [JSON.stringify(wanted)]);
      return wanted;
    }
    await this.db.query(`INSERT INTO homebase_meta (key, value) VALUES ('consoleToken', $1::jsonb) ON CONFLICT (key) DO NOTHING`, [JSON.stringify(fresh)]);
    return (await this.db.query<{ value: string }>(`SELECT value FROM homebase_meta WHERE key = 'consoleToken'`)).rows[0].value;
  }

  /** Swaps a workspace's content in one transaction: each target store gets exactly its
   *  documents (created when missing), a null target is dropped, and the settings, when given,
   *  are replaced. A unique violation or a lost connection leaves everything as it was. */
  async swap(workspace: string, targets: Map<string, Doc[] | null>, settings: unknown): Promise<void> {
    try {
      await this.db.tx(async (c) => {
        await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`homebase-snapshot:${workspace}`]);
        for (const [name, docs] of targets) {
          const table = (await c.query<{ table_name: string }>('SELECT table_name FROM homebase_stores WHERE workspace = $1 AND name = $2', [workspace, name])).rows[0]?.table_name;
          if (!docs) {
            if (table) {
              await c.query('DELETE FROM homebase_stores WHERE table_name = $1', [table]);
              await c.query(`DROP TABLE ${table}`);
            }
            continue;
          }
          let t: string | undefined = table;
          if (t && name.startsWith('collections/')) {
            // A collection's table may carry unique indexes of the old schema: it starts afresh
            // (the database module adds the indexes the new schema wants on first use).
            await c.query('DELETE FROM homebase_stores WHERE table_name = $1', [t]);
            await c.query(`DROP TABLE ${t}`);
            t = undefined;
          }
          t ??= await this.db.createStoreTable(c, workspace, name);
          await c.query(`DELETE FROM ${t}`);
          await insertDocs(c, t, docs);
        }
        if (settings !== undefined) {
          // After any schema change under way in another process (settingsAdapter's lock), never between its read and write.
          await c.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [SETTINGS_LOCK, workspace]);
          await c.query('UPDATE homebase_workspaces SET settings = $2::jsonb WHERE id = $1', [workspace, JSON.stringify(settings)]);
        }
      });
    } finally {
      this.db.forget(workspace); // handles of tables dropped or created
    }
  }
}

/** Inserts a workspace's row within transaction `c`; 409 when one by that id (or differing
 *  only in case) exists. */
async function insertWorkspace(c: pg.PoolClient, id: string, name: string, settings: { createdAt: string; [key: string]: unknown }, keys: unknown): Promise<void> {
  await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['homebase-workspaces']);
  const twin = (await c.query<{ id: string }>('SELECT id FROM homebase_workspaces WHERE lower(id) = lower($1)', [id])).rows[0];
  if (twin) {
    throw twin.id === id ? new UniqueViolationError(`Workspace '${id}' already exists`, { field: '_id' })
      : new UniqueViolationError(`Workspace '${twin.id}' already exists; workspace ids may not differ only in case (they name folders on case-insensitive file systems)`, { field: '_id' });
  }
  await c.query('INSERT INTO homebase_workspaces (id, name, created_at, settings, keys) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)',
    [id, name, settings.createdAt, JSON.stringify(settings), JSON.stringify(keys)]);
}

async function insertDocs(c: pg.PoolClient, table: string, docs: Doc[]): Promise<void> {
  for (let i = 0; i < docs.length; i += 1000) {
    await c.query(`INSERT INTO ${table} (id, doc) SELECT d ->> '_id', d FROM jsonb_array_elements($1::jsonb) AS t(d)`, [JSON.stringify(docs.slice(i, i + 1000))]);
  }
}
