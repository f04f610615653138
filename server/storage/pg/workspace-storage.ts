// A workspace's stores on PostgreSQL: one table each (pg-store.ts), the idle deadline in the
// workspace's row. Nothing is held open per workspace: the database keeps the tables.
import type { WorkspaceStorage } from '../engine.js';
import type { Store } from '../store.js';
import type { Workspace } from '../workspace.js';
import type { PgBackend } from './engine.js';
import { PgWorkspaceBackend } from './workspace-backend.js';

export class PgStores implements WorkspaceStorage {
  readonly backend: PgWorkspaceBackend;

  constructor(private readonly ws: Workspace, private readonly pg: PgBackend) {
    this.backend = new PgWorkspaceBackend(ws, pg);
  }

  get processes(): PgBackend { return this.pg; }

  store(name: string): Promise<Store> { return this.pg.db.store(this.ws.id, name); }

  /** Never open without a round trip: a read always asks the database. */
  openStore(): Store | undefined { return undefined; }

  storeNames(): Promise<string[]> { return this.pg.db.storeNames(this.ws.id); }

  dropStore(name: string): Promise<void> { return this.pg.db.dropStore(this.ws.id, name); }

  readExpiry<E>(): Promise<E | undefined> { return this.pg.workspaces.expiry<E>(this.ws.id); }

  writeExpiry(value: unknown): Promise<void> { return this.pg.workspaces.setExpiry(this.ws.id, value); }

  async close(): Promise<string[]> { return []; }
}
