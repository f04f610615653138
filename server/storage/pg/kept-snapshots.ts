// A workspace's snapshots kept in the database (snapshots.ts: table copies and the settings, one
// list for every process sharing it), seen through the engine-neutral interface. The snapshot
// code and the pg client under it load on first use only.
import type { KeptSnapshots, KeptSnapshotOptions } from '../workspace-backend.js';
import type { WorkspaceSettings } from '../workspace.js';
import type { PgDatabase } from './database.js';

const load = () => import('./snapshots.js');

export function keptSnapshots(db: PgDatabase, workspace: string): KeptSnapshots {
  return {
    has: async (name) => (await load()).hasDbSnapshot(db, workspace, name),
    take: async <I>(name: string, options: KeptSnapshotOptions<I>) => (await load()).takeDbSnapshot<WorkspaceSettings, I>(db, workspace, name, options),
    restore: async <I>(name: string, options: { skip?: ReadonlySet<string>; keepSettings?: readonly string[] }) =>
      (await load()).restoreDbSnapshot<WorkspaceSettings, I>(db, workspace, name, options),
    list: async <I>() => (await load()).listDbSnapshots<I>(db, workspace),
    delete: async (name) => (await load()).deleteDbSnapshot(db, workspace, name),
  };
}
