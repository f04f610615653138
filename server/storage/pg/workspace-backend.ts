// A workspace's whole content on PostgreSQL: captured by reading every store table, swapped in
// one transaction (the stores and the settings; workspaces.ts swap).
import type { Doc } from '../query.js';
import type { KeptSnapshots, SwapFiles, WorkspaceBackend } from '../workspace-backend.js';
import { keptSnapshots } from './kept-snapshots.js';
import type { Workspace, WorkspaceSettings } from '../workspace.js';
import type { PgBackend } from './engine.js';

export class PgWorkspaceBackend implements WorkspaceBackend {
  readonly snapshots: KeptSnapshots;

  constructor(private readonly ws: Workspace, private readonly pg: PgBackend) {
    this.snapshots = keptSnapshots(pg.db, ws.id);
  }

  async captureStores(skip: ReadonlySet<string>): Promise<Map<string, Doc[]>> {
    const stores = new Map<string, Doc[]>();
    for (const name of await this.ws.storeNames()) {
      if (skip.has(name)) continue;
      stores.set(name, await (await this.ws.store(name)).all()); // fresh copies already
    }
    return stores;
  }

  async swap(targets: Map<string, Doc[] | null>, settings: WorkspaceSettings, files?: SwapFiles): Promise<void> {
    const settingsChanged = JSON.stringify(this.ws.settings.data) !== JSON.stringify(settings);
    await this.pg.workspaces.swap(this.ws.id, targets, settingsChanged ? settings : undefined);
    if (settingsChanged) this.ws.settings.adopt(settings);
    if (files) await files.apply();
  }
}
