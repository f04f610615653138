// The workspace registry: which workspaces exist (lowdb `homebase.json` in the data folder),
// the console token, and the open Workspace objects. Lifecycle listeners let modules start and
// stop per-workspace work (delivery queues, schedules, sockets).
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SettingsStore } from './settings-store.js';
import { Workspace, freshKeys, restrictToOwner, withoutControls, type PgBackend, type WorkspaceSettings, type WorkspaceKeys } from './workspace.js';
import { NotFoundError, UniqueViolationError, UnstorableValueError } from './errors.js';
import { ALONE, type ProcessLink } from './processes.js';
import { crashPoint } from './disk.js';
import { copyStores, fillStores } from './embedded/fork.js';
import { ID_RULE, idFoldKey, isValidId } from '../core/ids.js';
import type { WorkspaceInfo } from '../shared/models.js';
import type { Doc } from './query.js';

/** What a fork copies (Registry.fork). */
export interface ForkOptions {
  name: string;
  /** Stores left out (sessions, outbox, reset tokens, delivery queues: operational state). */
  skip: ReadonlySet<string>;
  /** A snapshot of the source instead of its live content (see Registry.fork). */
  snapshot?: string | { settings: WorkspaceSettings; stores: ReadonlyMap<string, Doc[]> };
  /** Runs before the fork is registered; `snapshotFilesDir`: what the PostgreSQL snapshot
   *  recorded as its files folder. */
  prepare?: (ws: Workspace, copied: { snapshotFilesDir?: string | null }) => Promise<void>;
}

interface RegistryData { consoleToken: string; workspaces: WorkspaceInfo[] }

export interface WorkspaceLifecycle {
  opened?(ws: Workspace): void | Promise<void>;
  closing?(ws: Workspace): void | Promise<void>;
  deleted?(ws: Workspace): void | Promise<void>;
  /** The workspace's content was swapped wholesale (reset, snapshot restore, import): drop caches,
   *  re-read schedules, close subscriptions that may no longer be allowed. */
  replaced?(ws: Workspace): void | Promise<void>;
}

export class Registry {
  private open = new Map<string, Workspace>();
  /** Ids of forks being made (taken, not yet open). */
  private forking = new Set<string>();
  private listeners: WorkspaceLifecycle[] = [];

  private constructor(
    private readonly dataDir: string | undefined,
    private readonly store: SettingsStore<RegistryData>,
    private readonly compactEvery: number,
    /** On PostgreSQL: the database, and the folder of uploaded files (`--files`). */
    private readonly pg?: PgBackend & { filesDir: string },
  ) {}

  /** The registry on PostgreSQL: workspaces, settings, keys and the console token in the
   *  database; each workspace's uploaded files in `filesDir/<id>`. */
  static async loadPg(pg: PgBackend, filesDir: string, consoleToken: string | undefined): Promise<Registry> {
    await mkdir(filesDir, { recursive: true, mode: 0o700 });
    const token = await pg.workspaces.consoleToken(consoleToken, `hb_console_${randomBytes(24).toString('base64url')}`);
    const rows = await pg.workspaces.list<WorkspaceSettings, WorkspaceKeys>();
    const store = await SettingsStore.open<RegistryData>(undefined, {
      consoleToken: token, workspaces: rows.map((r) => ({ _id: r.id, name: r.name, createdAt: r.createdAt })),
    });
    const registry = new Registry(undefined, store, 0, { ...pg, filesDir });
    for (const r of rows) registry.open.set(r.id, await Workspace.openPg(r.id, pg, join(filesDir, r.id), r.keys, { name: r.name, createdAt: r.createdAt }));
    return registry;
  }

  /** Another process created a workspace: open it here too (undefined if there is none). */
  async adopt(id: string): Promise<Workspace | undefined> {
    if (!this.pg || this.open.has(id)) return this.open.get(id);
    const row = await this.pg.workspaces.get<WorkspaceSettings, WorkspaceKeys>(id);
    if (!row || this.open.has(id)) return this.open.get(id);
    const ws = await Workspace.openPg(id, this.pg, join(this.pg.filesDir, id), row.keys, { name: row.name, createdAt: row.createdAt });
    if (this.open.has(id)) return this.open.get(id);
    this.open.set(id, ws);
    await this.save((d) => { d.workspaces.push({ _id: id, name: row.name, createdAt: row.createdAt }); });
    for (const l of this.listeners) await l.opened?.(ws);
    return ws;
  }

  /** Another process deleted a workspace: close it here. */
  async release(id: string): Promise<void> {
    const ws = this.open.get(id);
    if (!ws || !this.pg) return;
    for (const l of this.listeners) await l.closing?.(ws);
    this.open.delete(id);
    await this.save((d) => { d.workspaces = d.workspaces.filter((w) => w._id !== id); });
    await ws.close();
    for (const l of this.listeners) await l.deleted?.(ws);
  }

  get database(): PgBackend | undefined { return this.pg; }

  /** What this process says to the others sharing its stores (processes.ts). */
  get processes(): ProcessLink { return this.pg ?? ALONE; }

  static async load(dataDir: string | undefined, consoleToken: string | undefined, compactEvery: number): Promise<Registry> {
    if (dataDir) {
      // Owner only: the data folder holds the console token, keys, password hashes and all data.
      // A folder made earlier (or by the caller, under its umask) is brought in line at start.
      await mkdir(join(dataDir, 'workspaces'), { recursive: true, mode: 0o700 });
      await restrictToOwner(dataDir);
      await restrictToOwner(join(dataDir, 'workspaces'));
    }
    const store = await SettingsStore.open<RegistryData>(dataDir && join(dataDir, 'homebase.json'),
      { consoleToken: '', workspaces: [] });
    const registry = new Registry(dataDir, store, compactEvery);
    const token = consoleToken ?? (store.data.consoleToken || `hb_console_${randomBytes(24).toString('base64url')}`);
    if (token !== store.data.consoleToken) await registry.save((d) => { d.consoleToken = token; });
    else await registry.restrictFile();
    for (const info of store.data.workspaces) {
      registry.open.set(info._id, await Workspace.open(info._id, registry.dirOf(info._id), { name: info.name }, compactEvery));
    }
    return registry;
  }

  get consoleToken(): string { return this.store.data.consoleToken; }

  /** Registers lifecycle listeners; `opened` runs at once for the workspaces already open. */
  async listen(listener: WorkspaceLifecycle): Promise<void> {
    this.listeners.push(listener);
    for (const ws of this.open.values()) await listener.opened?.(ws);
  }

  list(): WorkspaceInfo[] { return this.store.data.workspaces.map((w) => ({ ...w })); }

  get(id: string): Workspace | undefined { return this.open.get(id); }

  require(id: string): Workspace {
    const ws = this.open.get(id);
    if (!ws) throw new NotFoundError('Workspace', id);
    return ws;
  }

  /** A new workspace's id: well formed, free, and no twin differing only in case. */
  private checkNewId(id: string): void {
    if (!isValidId(id)) throw new UnstorableValueError('_id', 'format', `'_id' ${ID_RULE}`);
    if (this.open.has(id) || this.forking.has(id)) throw new UniqueViolationError(`Workspace '${id}' already exists`, { field: '_id' });
    // A workspace's id names its folder: on a case-insensitive file system (macOS, Windows) `Demo`
    // beside `demo` would be the same folder, and deleting one would wipe the other.
    const twin = [...this.open.keys(), ...this.forking].find((other) => idFoldKey(other) === idFoldKey(id));
    if (twin) throw new UniqueViolationError(`Workspace '${twin}' already exists; workspace ids may not differ only in case (they name folders on case-insensitive file systems)`, { field: '_id' });
  }

  /** Creates workspace `id` as a copy of `source` through the engine (forks.ts of the storage
   *  layer): its stores but `skip`, its settings, its encryption key (sealed secrets stay
   *  readable) and a fresh signing key (the source's tokens are not the fork's). `snapshot`
   *  copies one of the source's snapshots instead: on PostgreSQL by name (the snapshot lives in
   *  the database), on the embedded stores as the content the caller read from it. `prepare`
   *  runs before the fork is registered (its files are copied then); if anything fails the fork
   *  is removed again. */
  async fork(source: Workspace, id: string, options: ForkOptions): Promise<Workspace> {
    this.checkNewId(id);
    const keys: WorkspaceKeys = { ...freshKeys(), encryptionKey: source.keys.encryptionKey };
    const name = options.name;
    let ws: Workspace | undefined;
    let snapshotFilesDir: string | null | undefined;
    this.forking.add(id); // the id is taken from now on (checkNewId of a concurrent create or fork)
    try {
      if (this.pg) {
        const row = await this.pg.workspaces.fork(source.id, id, { name, keys, skip: options.skip, snapshot: typeof options.snapshot === 'string' ? options.snapshot : undefined });
        snapshotFilesDir = row.snapshotFilesDir;
        ws = await Workspace.openPg(id, this.pg, join(this.pg.filesDir, id), keys, { name, createdAt: row.createdAt });
        await ws.settings.reload();
      } else {
        // The id is free, so a folder of that name is what a fork or create cut short by a crash
        // left (never registered, never acknowledged): it goes, or its stale stores and keys
        // would become the fork's. The folder is then filled (keys, store files) and its
        // settings written once, last, before the fork is registered (homebase.json): one
        // flushed write fewer than writing default settings first.
        const dir = this.dirOf(id);
        if (dir) await rm(dir, { recursive: true, force: true });
        ws = await Workspace.open(id, dir, { name, keys, settingsLater: true }, this.compactEvery);
        const createdAt = ws.settings.data.createdAt;
        let settings: WorkspaceSettings;
        if (options.snapshot && typeof options.snapshot !== 'string') {
          await fillStores(ws, options.snapshot.stores);
          settings = structuredClone(options.snapshot.settings);
        } else {
          settings = await copyStores(source, ws, options.skip);
        }
        await ws.settings.replace({ ...withoutControls(settings), name, createdAt }); // the clock and faults are no content
        crashPoint('fork:settings'); // kill -9 tests: everything written but the registration
      }
      await options.prepare?.(ws, { snapshotFilesDir });
    } catch (err) {
      this.forking.delete(id);
      if (ws) await ws.close().catch(() => undefined);
      if (this.pg && ws) await this.pg.workspaces.delete(id).catch(() => undefined);
      if (ws?.dir) await rm(ws.dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
    this.forking.delete(id);
    this.open.set(id, ws);
    await this.save((d) => { d.workspaces.push({ _id: id, name, createdAt: ws.settings.data.createdAt }); });
    crashPoint('fork:registered'); // kill -9 tests: registered, not yet answered
    this.pg?.changed(id, 'created');
    for (const l of this.listeners) await l.opened?.(ws);
    return ws;
  }

  async create(id: string, name: string): Promise<Workspace> {
    this.checkNewId(id);
    let ws: Workspace;
    if (this.pg) {
      const keys = freshKeys();
      const createdAt = new Date().toISOString();
      await this.pg.workspaces.create(id, name, { name, createdAt, collections: [] }, keys);
      ws = await Workspace.openPg(id, this.pg, join(this.pg.filesDir, id), keys, { name, createdAt });
    } else {
      ws = await Workspace.open(id, this.dirOf(id), { name }, this.compactEvery);
    }
    this.open.set(id, ws);
    const info: WorkspaceInfo = { _id: id, name, createdAt: ws.settings.data.createdAt };
    await this.save((d) => { d.workspaces.push(info); });
    this.pg?.changed(id, 'created');
    for (const l of this.listeners) await l.opened?.(ws);
    return ws;
  }

  async delete(id: string): Promise<void> {
    const ws = this.require(id);
    for (const l of this.listeners) await l.closing?.(ws);
    this.open.delete(id);
    await this.save((d) => { d.workspaces = d.workspaces.filter((w) => w._id !== id); });
    if (this.pg) {
      await this.pg.workspaces.delete(id);
      this.pg.changed(id, 'deleted');
    }
    await ws.close(); // its folder goes next: what it could not compact no longer matters
    for (const l of this.listeners) await l.deleted?.(ws);
    if (ws.dir) await rm(ws.dir, { recursive: true, force: true });
  }

  /** Tells listeners that a workspace's content was replaced (reset, restore, import). */
  async notifyReplaced(ws: Workspace, options: { local?: boolean } = {}): Promise<void> {
    if (!options.local) this.pg?.changed(ws.id, 'replaced');
    for (const l of this.listeners) await l.replaced?.(ws);
  }

  /** Stops every workspace; resolves to what could not be flushed (see Workspace.close). */
  async close(): Promise<string[]> {
    const problems: string[] = [];
    for (const ws of this.open.values()) {
      for (const l of this.listeners) {
        try { await l.closing?.(ws); } catch (err) { problems.push(`workspace '${ws.id}': ${(err as Error).message}`); }
      }
    }
    for (const list of await Promise.all([...this.open.values()].map((ws) => ws.close()))) problems.push(...list);
    try { await this.store.flush(); } catch (err) { problems.push(`registry: ${(err as Error).message}`); }
    return problems;
  }

  /** Writes `homebase.json` and keeps it owner-only (0600): it holds the console token. lowdb
   *  writes a new file and renames it over the old one, so the mode is set again after each write
   *  (the data folder itself is 0700, so no one else could read it in between). */
  private async save(change: (d: RegistryData) => void): Promise<void> {
    await this.store.update(change);
    await this.restrictFile();
  }

  private async restrictFile(): Promise<void> {
    if (this.dataDir) await restrictToOwner(join(this.dataDir, 'homebase.json'));
  }

  private dirOf(id: string): string | undefined {
    return this.dataDir && join(this.dataDir, 'workspaces', id);
  }
}
