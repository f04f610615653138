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

export interface WorkspaceBackend {
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
