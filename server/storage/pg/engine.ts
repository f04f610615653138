// The PostgreSQL engine (`--database`): the registry, each workspace's settings and keys in
// tables (workspaces.ts), its stores one table each, a fork made by table copies in one
// transaction, and each workspace's uploaded files under `<files>/<id>` (`--files`). What the
// processes sharing the database say to each other travels through it (start.ts).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SettingsStore } from '../settings-store.js';
import type { ProcessLink } from '../processes.js';
import type { EngineForkOptions, RegistryCatalog, RegistryData, StorageEngine } from '../engine.js';
import { Workspace, freshKeys, restrictToOwner, type WorkspaceKeys, type WorkspaceSettings } from '../workspace.js';
import type { PgDatabase } from './database.js';
import type { PgWorkspaces } from './workspaces.js';
import type { EventRelay } from './coordination.js';
import { PgStores } from './workspace-storage.js';
import type { WorkspaceInfo } from '../../shared/models.js';

/** The database behind the workspaces, and what the processes on it share (start.ts). */
export interface PgBackend extends ProcessLink {
  db: PgDatabase;
  workspaces: PgWorkspaces;
  relay?: EventRelay;
  /** Tells the other processes that a workspace was created, deleted or swapped wholesale. */
  changed(workspace: string, what: 'created' | 'deleted' | 'replaced'): void;
}

export class PgEngine implements StorageEngine {
  constructor(readonly link: PgBackend, private readonly filesDir: string) {}

  get processes(): ProcessLink { return this.link; }
  get db(): PgDatabase { return this.link.db; }
  get relay(): EventRelay | undefined { return this.link.relay; }

  async load(consoleToken: string | undefined, fresh: () => string): Promise<{ catalog: RegistryCatalog; workspaces: Workspace[] }> {
    await mkdir(this.filesDir, { recursive: true, mode: 0o700 });
    const token = await this.link.workspaces.consoleToken(consoleToken, fresh());
    const rows = await this.link.workspaces.list<WorkspaceSettings, WorkspaceKeys>();
    // The list is the database's; this copy in memory follows it through the relayed messages.
    const store = await SettingsStore.open<RegistryData>(undefined, {
      consoleToken: token, workspaces: rows.map((r) => ({ _id: r.id, name: r.name, createdAt: r.createdAt })),
    });
    const catalog: RegistryCatalog = {
      get data() { return store.data; },
      update: async (change) => { await store.update(change); },
      flush: () => store.flush(),
    };
    const workspaces: Workspace[] = [];
    for (const r of rows) workspaces.push(await this.open(r.id, r.keys, { name: r.name, createdAt: r.createdAt }));
    return { catalog, workspaces };
  }

  async adopt(id: string): Promise<{ ws: Workspace; info: WorkspaceInfo } | undefined> {
    const row = await this.link.workspaces.get<WorkspaceSettings, WorkspaceKeys>(id);
    if (!row) return undefined;
    return { ws: await this.open(id, row.keys, { name: row.name, createdAt: row.createdAt }), info: { _id: id, name: row.name, createdAt: row.createdAt } };
  }

  async create(id: string, name: string): Promise<Workspace> {
    const keys = freshKeys();
    const createdAt = new Date().toISOString();
    await this.link.workspaces.create(id, name, { name, createdAt, collections: [] }, keys);
    return this.open(id, keys, { name, createdAt });
  }

  /** The copy is made in one transaction (workspaces.ts fork): all of it or nothing. */
  async fork(source: Workspace, id: string, options: EngineForkOptions): Promise<{ ws: Workspace; snapshotFilesDir: string | null }> {
    const { name, keys, skip, snapshot } = options;
    if (snapshot !== undefined && typeof snapshot !== 'string') throw new Error('fork: PostgreSQL keeps its snapshots, name one');
    const row = await this.link.workspaces.fork(source.id, id, { name, keys, skip, snapshot });
    let ws: Workspace | undefined;
    try {
      ws = await this.open(id, keys, { name, createdAt: row.createdAt });
      await ws.settings.reload();
    } catch (err) {
      if (ws) await ws.close().catch(() => undefined);
      await this.link.workspaces.delete(id).catch(() => undefined);
      throw err;
    }
    return { ws, snapshotFilesDir: row.snapshotFilesDir };
  }

  remove(id: string): Promise<void> { return this.link.workspaces.delete(id); }

  announce(id: string, what: 'created' | 'deleted' | 'replaced'): void { this.link.changed(id, what); }

  private closed?: Promise<void>;

  close(): Promise<void> {
    return (this.closed ??= (async () => {
      await this.link.relay?.close().catch(() => undefined);
      await this.link.db.close().catch(() => undefined);
    })());
  }

  /** A workspace on the database: settings and keys from its row, uploaded files under its folder. */
  private async open(id: string, keys: WorkspaceKeys, init: { name: string; createdAt: string }): Promise<Workspace> {
    const dir = join(this.filesDir, id);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await restrictToOwner(dir);
    const settings = await SettingsStore.openWith<WorkspaceSettings>(this.link.workspaces.settingsAdapter<WorkspaceSettings>(id),
      { name: init.name, createdAt: init.createdAt, collections: [] });
    return new Workspace(id, dir, settings, keys, (ws) => new PgStores(ws, this.link));
  }
}
