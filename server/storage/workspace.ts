// One workspace: its settings (lowdb), its document stores (nedb, opened lazily), its keys and
// its files folder. Everything a workspace holds lives under its own folder, so deleting,
// snapshotting or exporting it never touches another.
import { mkdir, readdir, readFile, writeFile, rm, chmod, stat, rename } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DocStore } from './embedded/doc-store.js';
import type { Store } from './store.js';
import { embeddedStore } from './embedded/embedded-store.js';
import { SettingsStore } from './settings-store.js';
import { StorageUnavailableError, StoreUnavailableError } from './errors.js';
import { recoverSwap } from './embedded/swap.js';
import type { PgDatabase } from './pg/database.js';
import type { PgWorkspaces } from './pg/workspaces.js';
import type { EventRelay } from './pg/coordination.js';
import { ALONE, type ProcessLink } from './processes.js';
import type { WorkspaceBackend } from './workspace-backend.js';
import { EmbeddedWorkspaceBackend } from './embedded/workspace-backend.js';
import { PgWorkspaceBackend } from './pg/workspace-backend.js';

/** The PostgreSQL driver behind a workspace (`--database`): its stores are tables, its settings
 *  and keys a row of homebase_workspaces; its folder holds only uploaded files (`--files`). And
 *  what the processes on the database share (storage/pg/start.ts). */
export interface PgBackend extends ProcessLink {
  db: PgDatabase;
  workspaces: PgWorkspaces;
  relay?: EventRelay;
  /** Tells the other processes that a workspace was created, deleted or swapped wholesale. */
  changed(workspace: string, what: 'created' | 'deleted' | 'replaced'): void;
}

const LOAD_RETRY_MS = 1000;
const LOAD_RETRY_MAX_MS = 60_000;
import type { CollectionDef } from '../shared/models.js';
import { ID_SOURCE } from '../core/ids.js';
import { clockNow, type ClockSetting } from '../core/clock.js';

/** Settings that are test controls, not content: the workspace's clock and its injected faults.
 *  Snapshots, exports and forks leave them out; a restore, import or reset keeps the current
 *  ones. */
export const CONTROL_SETTINGS = ['clock', 'faults'] as const;

/** A copy of settings without the test controls. */
export function withoutControls<T extends object>(settings: T): T {
  const out = { ...settings } as Record<string, unknown>;
  for (const key of CONTROL_SETTINGS) delete out[key];
  return out as T;
}

/** `settings` with the test controls of `current` (those `settings` carries are dropped). */
export function withControlsOf<T extends object>(settings: T, current: object): T {
  const out = withoutControls(settings) as Record<string, unknown>;
  for (const key of CONTROL_SETTINGS) if ((current as Record<string, unknown>)[key] !== undefined) out[key] = (current as Record<string, unknown>)[key];
  return out as T;
}

export interface WorkspaceSettings {
  name: string;
  createdAt: string;
  collections: CollectionDef[];
  /** The admin created with the workspace; reset keeps it. */
  firstAdminId?: string;
  /** The workspace's clock (core/clock.ts); absent: the machine's time. */
  clock?: ClockSetting;
  [key: string]: unknown;
}

export interface WorkspaceKeys {
  /** HS256 signing key of access tokens. */
  jwtSecret: string;
  /** AES-256-GCM key for secrets at rest (base64). */
  encryptionKey: string;
}

/** Store names are `users`, `sessions`, ... or `collections/<id>` for a collection's records. */
const STORE_NAME = new RegExp(`^(?:[a-z][a-z0-9_-]*|collections/${ID_SOURCE})$`);

export class Workspace {
  private stores = new Map<string, Promise<DocStore>>();
  private loadFailures = new Map<string, { error: StorageUnavailableError; retryAt: number; attempts: number }>();
  /** The same stores once open, for lookups that must not wait a turn (openStore). */
  private opened = new Map<string, DocStore>();
  /** Set while a restore or import swaps the content: requests get 503. */
  busy = false;
  /** Told when the workspace's clock was set, moved or returned to real time: `local` when the
   *  change was made in this process (false: another process on the same database made it). */
  readonly clockListeners = new Set<(local: boolean) => void | Promise<void>>();
  /** The engine's side of the workspace as a whole: capture and swap (workspace-backend.ts). */
  readonly backend: WorkspaceBackend;

  private constructor(
    readonly id: string,
    readonly dir: string | undefined,
    readonly settings: SettingsStore<WorkspaceSettings>,
    readonly keys: WorkspaceKeys,
    readonly compactEvery: number,
    /** Set on PostgreSQL; undefined for the embedded stores. */
    readonly pg?: PgBackend,
  ) {
    this.backend = pg ? new PgWorkspaceBackend(this, pg) : new EmbeddedWorkspaceBackend(this);
  }

  /** A workspace on PostgreSQL: settings and keys from its row, uploaded files under `dir`. */
  static async openPg(id: string, pg: PgBackend, dir: string, keys: WorkspaceKeys, init: { name: string; createdAt: string }): Promise<Workspace> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await restrictToOwner(dir);
    const settings = await SettingsStore.openWith<WorkspaceSettings>(pg.workspaces.settingsAdapter<WorkspaceSettings>(id),
      { name: init.name, createdAt: init.createdAt, collections: [] });
    return new Workspace(id, dir, settings, keys, 0, pg);
  }

  /** Opens (or, when its folder is new, creates) a workspace. `settingsLater`: the caller writes
   *  the settings itself right after (a fork: its settings are the source's, known only once its
   *  stores are copied), so a new folder's default settings are not written first. */
  static async open(id: string, dir: string | undefined, init: { name: string; keys?: WorkspaceKeys; settingsLater?: boolean }, compactEvery: number): Promise<Workspace> {
    if (dir) {
      // An import, restore or reset cut short by a crash: finished if it had committed, else
      // undone, before anything is read (storage/embedded/swap.ts).
      if (existsSync(join(dir, '.swap'))) await recoverSwap(dir);
      // Owner only (0700): the folder holds the keys, the users' password hashes and every record.
      await mkdir(join(dir, 'stores'), { recursive: true, mode: 0o700 });
      await mkdir(join(dir, 'collections'), { recursive: true, mode: 0o700 });
      await restrictToOwner(dir); // a folder made before this rule, or under a lax umask
    }
    // Two files apart: read (the keys maybe written) at the same time.
    const [settings, keys] = await Promise.all([
      SettingsStore.open<WorkspaceSettings>(dir && join(dir, 'settings.json'), { name: init.name, createdAt: new Date().toISOString(), collections: [] }),
      loadKeys(dir, init.keys),
    ]);
    if (dir && !init.settingsLater && !existsSync(join(dir, 'settings.json'))) await settings.update(() => undefined);
    return new Workspace(id, dir, settings, keys, compactEvery);
  }

  get inMemory(): boolean { return this.dir === undefined; }

  /** What this process says to the others sharing the workspace's stores (processes.ts). */
  get processes(): ProcessLink { return this.pg ?? ALONE; }

  /** The workspace's time now, in epoch ms: the machine's, unless its clock was set. */
  now(): number { return clockNow(this.settings.data.clock); }

  /** The workspace's time now, ISO 8601. */
  nowIso(): string { return new Date(clockNow(this.settings.data.clock)).toISOString(); }

  /** The folder for this workspace's uploaded files (created on demand); undefined in memory. */
  get filesDir(): string | undefined { return this.dir && join(this.dir, 'files'); }

  /** A document store, opened (and loaded) on first use. A store that fails to load answers
   *  503 naming the reason, and is tried again only after a back-off (1 s, doubling up to a
   *  minute): requests in between fail at once, holding nothing, so memory stays flat. */
  store(name: string): Promise<Store> {
    if (this.pg) {
      if (!STORE_NAME.test(name)) throw new Error(`invalid store name ${name}`);
      return this.pg.db.store(this.id, name);
    }
    return this.docStore(name).then(embeddedStore);
  }

  /** The embedded DocStore behind a store (the staged swaps of state.ts write its file). */
  docStore(name: string): Promise<DocStore> {
    if (this.pg) throw new Error('docStore: the embedded stores only');
    let store = this.stores.get(name);
    if (!store) {
      if (!STORE_NAME.test(name)) throw new Error(`invalid store name ${name}`);
      const failed = this.loadFailures.get(name);
      if (failed && Date.now() < failed.retryAt) return Promise.reject(failed.error);
      const file = this.storeFile(name);
      store = DocStore.open({ filename: file, compactEvery: this.compactEvery });
      this.stores.set(name, store);
      store.then(() => this.loadFailures.delete(name), (err: unknown) => {
        if (this.stores.get(name) === store) this.stores.delete(name);
        const attempts = (failed?.attempts ?? 0) + 1;
        const wait = Math.min(LOAD_RETRY_MAX_MS, LOAD_RETRY_MS * 2 ** (attempts - 1));
        const reason = (err as Error)?.message ?? String(err);
        const error = new StorageUnavailableError(`The ${name} store of workspace '${this.id}' could not be loaded from ${file ? dirname(file) : 'memory'}: ${reason}. Fix the file or its permissions; it is tried again in ${Math.ceil(wait / 1000)} s.`, file && dirname(file));
        this.loadFailures.set(name, { error, retryAt: Date.now() + wait, attempts });
      });
      store = store.catch(() => { throw this.loadFailures.get(name)!.error; });
      this.stores.set(name, store);
      const opening = store;
      opening.then((s) => { if (this.stores.get(name) === opening) this.opened.set(name, s); }, () => undefined);
    }
    return store;
  }

  /** The store when it is open already, else undefined (then `store` opens it): lets the token
   *  check and the record GET run without waiting a turn when nothing needs loading. */
  openStore(name: string): Store | undefined {
    const doc = this.opened.get(name);
    return doc && embeddedStore(doc);
  }

  /** The records of a collection. */
  records(collectionId: string): Promise<Store> { return this.store(`collections/${collectionId}`); }

  /** Names of every store this workspace has, open or only on disk. */
  async storeNames(): Promise<string[]> {
    if (this.pg) return this.pg.db.storeNames(this.id);
    const names = new Set(this.stores.keys());
    if (this.dir) {
      for (const f of await readdir(join(this.dir, 'stores')).catch(() => [] as string[])) if (f.endsWith('.db')) names.add(f.slice(0, -3));
      for (const f of await readdir(join(this.dir, 'collections')).catch(() => [] as string[])) if (f.endsWith('.db')) names.add(`collections/${f.slice(0, -3)}`);
    }
    return [...names].sort();
  }

  /** Deletes a store and its file (a dropped collection). */
  async dropStore(name: string): Promise<void> {
    if (this.pg) return this.pg.db.dropStore(this.id, name);
    const store = this.stores.get(name);
    this.stores.delete(name);
    this.opened.delete(name);
    if (store) await (await store).drop();
    else if (this.dir) await rm(this.storeFile(name)!, { force: true });
  }

  /** Forgets an open store without touching its file (a swap replaced or removed it): the next
   *  use loads it from the file again. */
  async forgetStore(name: string): Promise<void> {
    if (this.pg) { this.pg.db.forget(this.id); return; }
    const store = this.stores.get(name);
    this.stores.delete(name);
    this.opened.delete(name);
    this.loadFailures.delete(name);
    if (store) await (await store.catch(() => undefined))?.detach();
  }

  /** Makes `store` this workspace's store `name`, open and loaded (a fork's copy, made by
   *  storage/embedded/fork.ts). */
  adoptStore(name: string, store: DocStore): void {
    if (this.pg) throw new Error('adoptStore: the embedded stores only');
    this.checkStoreName(name);
    this.stores.set(name, Promise.resolve(store));
    this.opened.set(name, store);
  }

  /** Throws for a name no store may have. */
  checkStoreName(name: string): void {
    if (!STORE_NAME.test(name)) throw new Error(`invalid store name ${name}`);
  }

  /** The idle deadline this workspace is deleted at (a fork's `ttl`), as last saved: in its
   *  folder on disk, in the database on PostgreSQL, nowhere in memory (a restart ends it
   *  anyway). Undefined when it has none. */
  async readExpiry<E>(): Promise<E | undefined> {
    if (this.pg) return this.pg.workspaces.expiry<E>(this.id);
    if (!this.dir) return undefined;
    try {
      return JSON.parse(await readFile(join(this.dir, 'expiry.json'), 'utf8')) as E;
    } catch {
      return undefined;
    }
  }

  /** Saves (undefined: removes) the idle deadline (readExpiry). */
  async writeExpiry(value: unknown): Promise<void> {
    if (this.pg) return this.pg.workspaces.setExpiry(this.id, value);
    if (!this.dir) return;
    const file = join(this.dir, 'expiry.json');
    if (value === undefined) { await rm(file, { force: true }); return; }
    await writeFile(`${file}.tmp`, JSON.stringify(value), { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  }

  /** The file of a store (undefined in memory). */
  fileOf(name: string): string | undefined { return this.pg ? undefined : this.storeFile(name); }

  /** Fails with 503 while the workspace is being restored or imported. */
  assertAvailable(): void { if (this.busy) throw new StoreUnavailableError(); }

  /** Closes every store (waiting for queued writes, compacting those written to) and flushes
   *  the settings. Never rejects: resolves to what could not be done, one line each (every
   *  acknowledged change is on disk already; what fails here is a compaction or a queued write). */
  async close(): Promise<string[]> {
    const problems: string[] = [];
    await Promise.all([...this.stores.entries()].map(async ([name, p]) => {
      const store = await p.catch(() => undefined);
      try { await store?.close(); } catch (err) { problems.push(`workspace '${this.id}', ${name} store: ${(err as Error).message}`); }
    }));
    try { await this.settings.flush(); } catch (err) { problems.push(`workspace '${this.id}', settings: ${(err as Error).message}`); }
    return problems;
  }

  private storeFile(name: string): string | undefined {
    if (!this.dir || this.pg) return undefined;
    return name.startsWith('collections/') ? join(this.dir, 'collections', `${name.slice(12)}.db`) : join(this.dir, 'stores', `${name}.db`);
  }
}

/** New signing and encryption keys for a workspace. */
export const freshKeys = (): WorkspaceKeys => ({ jwtSecret: randomBytes(48).toString('base64url'), encryptionKey: randomBytes(32).toString('base64') });

async function loadKeys(dir: string | undefined, given?: WorkspaceKeys): Promise<WorkspaceKeys> {
  const fresh = () => given ?? freshKeys();
  if (!dir) return fresh();
  const file = join(dir, 'keys.json');
  try {
    return { ...JSON.parse(await readFile(file, 'utf8')) } as WorkspaceKeys;
  } catch {
    const keys = fresh();
    await writeFile(file, JSON.stringify(keys), { mode: 0o600 });
    await chmod(file, 0o600);
    return keys;
  }
}

/** Takes group and other permissions away from a file or folder the process owns (a folder
 *  `rwxr-xr-x` becomes 0700, a file `rw-r--r--` 0600; the owner's own bits stay as they are).
 *  Left alone: a path owned by another user (chmod would fail; its owner decides), and platforms
 *  without POSIX owners (Windows). */
export async function restrictToOwner(path: string): Promise<void> {
  if (typeof process.getuid !== 'function') return;
  const st = await stat(path).catch(() => undefined);
  if (!st || st.uid !== process.getuid() || (st.mode & 0o077) === 0) return;
  await chmod(path, st.mode & 0o700);
}
