// The workspace registry: which workspaces exist, the console token, and the open Workspace
// objects, over the storage engine picked at start (engine.ts; open-storage.ts picks it).
// Lifecycle listeners let modules start and stop per-workspace work (delivery queues,
// schedules, sockets).
import { rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { freshKeys, type Workspace, type WorkspaceSettings, type WorkspaceKeys } from './workspace.js';
import { NotFoundError, UniqueViolationError, UnstorableValueError } from './errors.js';
import type { ProcessLink } from './processes.js';
import { crashPoint } from './disk.js';
import type { RegistryCatalog, StorageEngine } from './engine.js';
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
  /** Runs before the fork is registered; `snapshotFilesDir`: what a snapshot kept by the engine
   *  recorded as its files folder. */
  prepare?: (ws: Workspace, copied: { snapshotFilesDir?: string | null }) => Promise<void>;
}

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
    /** The storage engine underneath (engine.ts). */
    readonly engine: StorageEngine,
    private readonly store: RegistryCatalog,
  ) {}

  /** The registry over `engine`: the console token is `consoleToken` when given, else the one
   *  kept, else a new one; every workspace it lists is opened. */
  static async open(engine: StorageEngine, consoleToken: string | undefined): Promise<Registry> {
    const { catalog, workspaces } = await engine.load(consoleToken, () => `hb_console_${randomBytes(24).toString('base64url')}`);
    const registry = new Registry(engine, catalog);
    for (const ws of workspaces) registry.open.set(ws.id, ws);
    return registry;
  }

  /** Another process created a workspace: open it here too (undefined if there is none). */
  async adopt(id: string): Promise<Workspace | undefined> {
    if (this.open.has(id)) return this.open.get(id);
    const adopted = await this.engine.adopt(id);
    if (!adopted || this.open.has(id)) return this.open.get(id);
    const { ws, info } = adopted;
    this.open.set(id, ws);
    await this.save((d) => { d.workspaces.push(info); });
    for (const l of this.listeners) await l.opened?.(ws);
    return ws;
  }

  /** Another process deleted a workspace: close it here. */
  async release(id: string): Promise<void> {
    const ws = this.open.get(id);
    if (!ws) return;
    for (const l of this.listeners) await l.closing?.(ws);
    this.open.delete(id);
    await this.save((d) => { d.workspaces = d.workspaces.filter((w) => w._id !== id); });
    await ws.close();
    for (const l of this.listeners) await l.deleted?.(ws);
  }

  /** What this process says to the others sharing its stores (processes.ts). */
  get processes(): ProcessLink { return this.engine.processes; }

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

  /** Creates workspace `id` as a copy of `source`, made by the engine (engine.ts fork): its
   *  stores but `skip`, its settings, its encryption key (sealed secrets stay readable) and a
   *  fresh signing key (the source's tokens are not the fork's). `snapshot` copies one of the
   *  source's snapshots instead: by name where the engine keeps them, else as the content the
   *  caller read from it. `prepare` runs before the fork is registered (its files are copied
   *  then); if anything fails the fork is removed again. */
  async fork(source: Workspace, id: string, options: ForkOptions): Promise<Workspace> {
    this.checkNewId(id);
    const keys: WorkspaceKeys = { ...freshKeys(), encryptionKey: source.keys.encryptionKey };
    const name = options.name;
    this.forking.add(id); // the id is taken from now on (checkNewId of a concurrent create or fork)
    let ws: Workspace;
    try {
      const made = await this.engine.fork(source, id, { name, keys, skip: options.skip, snapshot: options.snapshot });
      ws = made.ws;
      try {
        await options.prepare?.(ws, { snapshotFilesDir: made.snapshotFilesDir });
      } catch (err) {
        await ws.close().catch(() => undefined);
        await this.engine.remove(id).catch(() => undefined);
        if (ws.dir) await rm(ws.dir, { recursive: true, force: true }).catch(() => undefined);
        throw err;
      }
    } finally {
      this.forking.delete(id);
    }
    this.open.set(id, ws);
    await this.save((d) => { d.workspaces.push({ _id: id, name, createdAt: ws.settings.data.createdAt }); });
    crashPoint('fork:registered'); // kill -9 tests: registered, not yet answered
    this.engine.announce(id, 'created');
    for (const l of this.listeners) await l.opened?.(ws);
    return ws;
  }

  async create(id: string, name: string): Promise<Workspace> {
    this.checkNewId(id);
    const ws = await this.engine.create(id, name);
    this.open.set(id, ws);
    const info: WorkspaceInfo = { _id: id, name, createdAt: ws.settings.data.createdAt };
    await this.save((d) => { d.workspaces.push(info); });
    this.engine.announce(id, 'created');
    for (const l of this.listeners) await l.opened?.(ws);
    return ws;
  }

  async delete(id: string): Promise<void> {
    const ws = this.require(id);
    for (const l of this.listeners) await l.closing?.(ws);
    this.open.delete(id);
    await this.save((d) => { d.workspaces = d.workspaces.filter((w) => w._id !== id); });
    await this.engine.remove(id);
    this.engine.announce(id, 'deleted');
    await ws.close(); // its folder goes next: what it could not compact no longer matters
    for (const l of this.listeners) await l.deleted?.(ws);
    if (ws.dir) await rm(ws.dir, { recursive: true, force: true });
  }

  /** Tells listeners that a workspace's content was replaced (reset, restore, import). */
  async notifyReplaced(ws: Workspace, options: { local?: boolean } = {}): Promise<void> {
    if (!options.local) this.engine.announce(ws.id, 'replaced');
    for (const l of this.listeners) await l.replaced?.(ws);
  }

  /** Stops every workspace, then lets go of the engine; resolves to what could not be flushed
   *  (see Workspace.close). */
  async close(): Promise<string[]> {
    const problems: string[] = [];
    for (const ws of this.open.values()) {
      for (const l of this.listeners) {
        try { await l.closing?.(ws); } catch (err) { problems.push(`workspace '${ws.id}': ${(err as Error).message}`); }
      }
    }
    for (const list of await Promise.all([...this.open.values()].map((ws) => ws.close()))) problems.push(...list);
    try { await this.store.flush(); } catch (err) { problems.push(`registry: ${(err as Error).message}`); }
    await this.engine.close();
    return problems;
  }

  private async save(change: (d: RegistryCatalog['data']) => void): Promise<void> {
    await this.store.update(change);
  }
}
