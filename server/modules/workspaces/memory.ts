// What the workspaces module holds for one server: the idle deadlines of its forks (its
// workspaces are distinct objects, so two servers in one process never mix them) and the timer
// that deletes the expired ones, made when the first deadline is set; on an in-memory start, the
// first admin being stored (first-admin.ts); per workspace, the queue of its swaps, exports and
// snapshots (state.ts exclusive) and its snapshots on disk (snapshots.ts catalog); and the file
// sets of the snapshots the engine keeps, by folder.
import type { Workspace } from '../../storage/workspace.js';
import type { BaseContext } from '../context.js';
import type { Expiry, Sweeper } from './fork-ttl.js';
import type { FileSet } from './files.js';
import type { Catalog } from './snapshots.js';

export interface WorkspacesState {
  expiries: WeakMap<Workspace, Expiry>;
  sweeper?: Sweeper;
  firstAdmins: WeakMap<Workspace, Promise<void>>;
  /** The tail of each workspace's queue of swaps, exports and snapshots. */
  queues: WeakMap<Workspace, Promise<unknown>>;
  /** Each workspace's snapshots, read from its folder once, then kept in memory. */
  catalogs: WeakMap<Workspace, Promise<Catalog>>;
  /** The files of an engine-kept snapshot, by folder (a restore rewrites only those changed). */
  keptFileSets: Map<string, FileSet>;
}

export function create(_ctx: BaseContext): WorkspacesState {
  return { expiries: new WeakMap(), firstAdmins: new WeakMap(), queues: new WeakMap(), catalogs: new WeakMap(), keptFileSets: new Map() };
}
