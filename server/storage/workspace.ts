// One workspace: its settings, its keys, its files folder and its document stores (opened
// lazily by the engine underneath, engine.ts WorkspaceStorage). Engine-neutral: the engine that
// opened it (storage/embedded/, storage/pg/) supplies the stores; everything a workspace holds
// lives apart from every other, so deleting, snapshotting or exporting one never touches another.
import { chmod, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Store } from './store.js';
import type { SettingsStore } from './settings-store.js';
import { StoreUnavailableError } from './errors.js';
import type { ProcessLink } from './processes.js';
import type { WorkspaceBackend } from './workspace-backend.js';
import type { WorkspaceStorage } from './engine.js';

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
  /** Set while a restore or import swaps the content: requests get 503. */
  busy = false;
  /** Told when the workspace's clock was set, moved or returned to real time: `local` when the
   *  change was made in this process (false: another process on the same database made it). */
  readonly clockListeners = new Set<(local: boolean) => void | Promise<void>>();
  /** The engine's side of the workspace: its stores (engine.ts). */
  readonly storage: WorkspaceStorage;
  /** The engine's side of the workspace as a whole: capture, swap, snapshots (workspace-backend.ts). */
  readonly backend: WorkspaceBackend;

  /** Made by an engine: `storage` gives the engine's side of this workspace. */
  constructor(
    readonly id: string,
    /** The workspace's folder (on PostgreSQL: of its uploaded files only); undefined in memory. */
    readonly dir: string | undefined,
    readonly settings: SettingsStore<WorkspaceSettings>,
    readonly keys: WorkspaceKeys,
    storage: (ws: Workspace) => WorkspaceStorage,
  ) {
    this.storage = storage(this);
    this.backend = this.storage.backend;
  }

  get inMemory(): boolean { return this.dir === undefined; }

  /** What this process says to the others sharing the workspace's stores (processes.ts). */
  get processes(): ProcessLink { return this.storage.processes; }

  /** The workspace's time now, in epoch ms: the machine's, unless its clock was set. */
  now(): number { return clockNow(this.settings.data.clock); }

  /** The workspace's time now, ISO 8601. */
  nowIso(): string { return new Date(clockNow(this.settings.data.clock)).toISOString(); }

  /** The folder for this workspace's uploaded files (created on demand); undefined in memory. */
  get filesDir(): string | undefined { return this.dir && join(this.dir, 'files'); }

  /** A document store, opened (and loaded) on first use. A store that fails to load answers
   *  503 naming the reason (the embedded stores try it again only after a back-off). */
  store(name: string): Promise<Store> {
    checkStoreName(name);
    return this.storage.store(name);
  }

  /** The store when it is open already, else undefined (then `store` opens it): lets the token
   *  check and the record GET run without waiting a turn when nothing needs loading. */
  openStore(name: string): Store | undefined { return this.storage.openStore(name); }

  /** The records of a collection. */
  records(collectionId: string): Promise<Store> { return this.store(`collections/${collectionId}`); }

  /** Names of every store this workspace has, open or not. */
  storeNames(): Promise<string[]> { return this.storage.storeNames(); }

  /** Deletes a store and its documents (a dropped collection). */
  dropStore(name: string): Promise<void> { return this.storage.dropStore(name); }

  /** The idle deadline this workspace is deleted at (a fork's `ttl`), as last saved: in its
   *  folder on disk, in the database on PostgreSQL, nowhere in memory (a restart ends it
   *  anyway). Undefined when it has none. */
  readExpiry<E>(): Promise<E | undefined> { return this.storage.readExpiry<E>(); }

  /** Saves (undefined: removes) the idle deadline (readExpiry). */
  writeExpiry(value: unknown): Promise<void> { return this.storage.writeExpiry(value); }

  /** Fails with 503 while the workspace is being restored or imported. */
  assertAvailable(): void { if (this.busy) throw new StoreUnavailableError(); }

  /** Closes every store (waiting for queued writes, compacting those written to) and flushes
   *  the settings. Never rejects: resolves to what could not be done, one line each (every
   *  acknowledged change is on disk already; what fails here is a compaction or a queued write). */
  async close(): Promise<string[]> {
    const problems = await this.storage.close();
    try { await this.settings.flush(); } catch (err) { problems.push(`workspace '${this.id}', settings: ${(err as Error).message}`); }
    return problems;
  }
}

/** Throws for a name no store may have. */
export function checkStoreName(name: string): void {
  if (!STORE_NAME.test(name)) throw new Error(`invalid store name ${name}`);
}

/** New signing and encryption keys for a workspace. */
export const freshKeys = (): WorkspaceKeys => ({ jwtSecret: randomBytes(48).toString('base64url'), encryptionKey: randomBytes(32).toString('base64') });

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
