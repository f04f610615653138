// A storage engine, as the registry and a workspace see it: where workspaces are kept (the
// embedded stores in a data folder or in memory, storage/embedded/; PostgreSQL, storage/pg/), how
// one is opened, created, copied into a new one (a fork) and removed, and, for each workspace,
// its stores. The engine is picked once, at start (storage/open-storage.ts); nothing outside the
// engine's folder and that file knows which one it is.
import type { BusEvent } from '../core/bus.js';
import type { WorkspaceInfo } from '../shared/models.js';
import type { ProcessLink } from './processes.js';
import type { Doc } from './query.js';
import type { Store } from './store.js';
import type { WorkspaceBackend } from './workspace-backend.js';
import type { Workspace, WorkspaceKeys, WorkspaceSettings } from './workspace.js';

/** What the registry keeps: the console token and the list of workspaces. */
export interface RegistryData { consoleToken: string; workspaces: WorkspaceInfo[] }

/** Where the registry's own data lives (a file of the data folder, or memory beside a database). */
export interface RegistryCatalog {
  readonly data: RegistryData;
  /** Applies a change and resolves once it is kept. */
  update(change: (data: RegistryData) => void): Promise<void>;
  flush(): Promise<void>;
}

/** What a fork copies. */
export interface EngineForkOptions {
  name: string;
  /** The fork's keys (a fresh signing key, the source's encryption key). */
  keys: WorkspaceKeys;
  /** Stores left out (operational state). */
  skip: ReadonlySet<string>;
  /** A snapshot of the source instead of its live content: its name, where the engine keeps
   *  snapshots itself (the source's `backend.snapshots`), else the content read from it. */
  snapshot?: string | { settings: WorkspaceSettings; stores: ReadonlyMap<string, Doc[]> };
}

export interface StorageEngine {
  /** What this process says to the others sharing the engine's stores (processes.ts). */
  readonly processes: ProcessLink;
  /** The registry's data (the console token: `consoleToken` when given, else the one kept, else
   *  `fresh()`) and every workspace it lists, open. */
  load(consoleToken: string | undefined, fresh: () => string): Promise<{ catalog: RegistryCatalog; workspaces: Workspace[] }>;
  /** A workspace another process sharing the engine created, open here, with its entry of
   *  the registry (undefined if there is none). */
  adopt(id: string): Promise<{ ws: Workspace; info: WorkspaceInfo } | undefined>;
  /** Creates workspace `id`, empty, with fresh keys. */
  create(id: string, name: string): Promise<Workspace>;
  /** Creates workspace `id` as a copy of `source` (its stores but `skip`, its settings but the
   *  test controls, named `name`, with `keys`), or of one of its snapshots. The copy is one
   *  moment of the source; what a fork cut short by a crash left is never taken for a
   *  workspace. Fails with NotFoundError for an unknown snapshot, and leaves nothing behind
   *  when it fails. `snapshotFilesDir`: the files folder a snapshot kept by the engine named. */
  fork(source: Workspace, id: string, options: EngineForkOptions): Promise<{ ws: Workspace; snapshotFilesDir?: string | null }>;
  /** Removes what the engine keeps of a workspace beyond its folder (the caller closed it and
   *  removes its folder). */
  remove(id: string): Promise<void>;
  /** Tells the other processes that a workspace was created, deleted or swapped wholesale. */
  announce(id: string, what: 'created' | 'deleted' | 'replaced'): void;
  /** Lets go of the engine (connections, listeners) once every workspace is closed. Never rejects. */
  close(): Promise<void>;
}

/** The engine's side of one workspace: its stores, and what the engine keeps beside them. */
export interface WorkspaceStorage {
  /** The workspace as a whole: capture, swap, snapshots (workspace-backend.ts). */
  readonly backend: WorkspaceBackend;
  readonly processes: ProcessLink;
  /** A store, opened (and loaded) on first use; `name` is a valid store name. */
  store(name: string): Promise<Store>;
  /** The store when it is open already and can be read without waiting, else undefined. */
  openStore(name: string): Store | undefined;
  /** Names of every store the workspace has, open or not. */
  storeNames(): Promise<string[]>;
  /** Deletes a store and its documents (a dropped collection). */
  dropStore(name: string): Promise<void>;
  /** The idle deadline kept with the workspace (undefined: none). */
  readExpiry<E>(): Promise<E | undefined>;
  writeExpiry(value: unknown): Promise<void>;
  /** Closes every store; resolves to what could not be done, one line each. Never rejects. */
  close(): Promise<string[]>;
  /** Where the engine keeps a write's event in the write itself without a transaction of its own
   *  (the embedded stores' files): turns that on, and resolves to the events a previous run kept
   *  and never settled, to publish again. */
  keepEvents?(): Promise<BusEvent[]>;
  /** A kept event's owed listeners are done with it. */
  eventSettled?(id: string): void;
}
