// What a workspace's storage engine does with the workspace as a whole, behind one interface the
// modules use (the engine of each lives in storage/embedded/ and storage/pg/): capture every
// store's documents as one moment, and swap a whole new content in, all of it or nothing (reset,
// snapshot restore, import). The module decides what the content is; the engine how it is
// written: the embedded stores through one journal in the workspace folder, across kill -9,
// PostgreSQL in one transaction.
import type { Doc } from './query.js';
import type { WorkspaceSettings } from './workspace.js';

/** The file changes that go with a swap. An engine whose stores live in the workspace folder
 *  writes them through the swap's own journal (`plan`, then `written` once committed); one that
 *  cannot (PostgreSQL, memory) makes them right after the swap (`apply`). */
export interface SwapFiles {
  plan(): Promise<SwapFilesPlan>;
  written(plan: SwapFilesPlan): Promise<void>;
  apply(): Promise<void>;
}

export interface SwapFilesPlan {
  remove: string[];
  put: Array<{ path: string; src: { data: Buffer | string } | { path: string } }>;
}

/** How a snapshot kept by the engine is taken. */
export interface KeptSnapshotOptions<I> {
  overwrite?: boolean;
  /** Stores left out (sessions outlive restores). */
  skip?: ReadonlySet<string>;
  /** A folder, named by the caller, holding what lives outside the engine (file copies). */
  filesDir?: string;
  /** The figures to keep with the snapshot (the API answers with them). */
  describe?: (counts: Record<string, number>, settings: WorkspaceSettings | null) => I;
  /** Settings keys that are not content (the clock, the faults): left out of the snapshot, and
   *  kept as they are by a restore. */
  keepSettings?: readonly string[];
}

/** Snapshots an engine keeps itself, one list for every process sharing it. A name taken fails
 *  with UniqueViolationError, an unknown one with NotFoundError (storage/errors.ts). */
export interface KeptSnapshots {
  has(name: string): Promise<boolean>;
  take<I>(name: string, options: KeptSnapshotOptions<I>): Promise<{ createdAt: string; info: I | null; replacedFilesDir: string | null }>;
  restore<I>(name: string, options: { skip?: ReadonlySet<string>; keepSettings?: readonly string[] }): Promise<{ createdAt: string; settings: WorkspaceSettings | null; info: I | null; filesDir: string | null }>;
  list<I>(): Promise<Array<{ name: string; createdAt: string; info: I | null }>>;
  /** Resolves to the files folder the snapshot named (for the caller to remove). */
  delete(name: string): Promise<string | null>;
}

export interface WorkspaceBackend {
  /** Snapshots the engine keeps itself (PostgreSQL: table copies in the database, seen by every
   *  process). Undefined: the workspaces module keeps them (in memory, and in the workspace
   *  folder on disk) from captured states. */
  readonly snapshots?: KeptSnapshots;
  /** Every store's documents but those of `skip`, at one moment of the workspace. `copyDocs`
   *  false may hand out the stored documents themselves (read them, never change them); true
   *  gives copies that later writes cannot touch. */
  captureStores(skip: ReadonlySet<string>, copyDocs: boolean): Promise<Map<string, Doc[]>>;
  /** Swaps in new content: each store of `targets` gets exactly its documents (null: the store
   *  goes), the settings become `settings` (written only when they differ), and `files` go with it. All or nothing: a
   *  store refusing its content (a unique index) fails the swap and changes nothing. The caller
   *  has the workspace busy and the stores quiet. */
  swap(targets: Map<string, Doc[] | null>, settings: WorkspaceSettings, files?: SwapFiles): Promise<void>;
}
