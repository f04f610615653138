// A workspace's stores on the embedded engine: one nedb store per name, opened (and loaded from
// its file) on first use, the files under the workspace's folder (`stores/<name>.db`,
// `collections/<id>.db`), the idle deadline in `expiry.json`. In memory there are no files.
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DocStore } from './doc-store.js';
import { embeddedStore } from './embedded-store.js';
import { EmbeddedWorkspaceBackend } from './workspace-backend.js';
import { StorageUnavailableError } from '../errors.js';
import { ALONE, type ProcessLink } from '../processes.js';
import type { Store } from '../store.js';
import type { WorkspaceStorage } from '../engine.js';
import { checkStoreName, type Workspace } from '../workspace.js';
import { KeptEvents } from './kept-events.js';
import type { BusEvent } from '../../core/bus.js';

const LOAD_RETRY_MS = 1000;
const LOAD_RETRY_MAX_MS = 60_000;

export class EmbeddedStores implements WorkspaceStorage {
  private stores = new Map<string, Promise<DocStore>>();
  private loadFailures = new Map<string, { error: StorageUnavailableError; retryAt: number; attempts: number }>();
  /** The same stores once open, for lookups that must not wait a turn (openStore). */
  private opened = new Map<string, DocStore>();
  readonly backend: EmbeddedWorkspaceBackend;
  readonly processes: ProcessLink = ALONE;
  /** Events kept with their writes (on disk only; kept-events.ts). */
  private readonly kept: KeptEvents | undefined;

  constructor(readonly ws: Workspace, readonly compactEvery: number) {
    this.backend = new EmbeddedWorkspaceBackend(ws, this);
    this.kept = ws.dir ? new KeptEvents(ws.dir, ws.id) : undefined;
  }

  /** Events published by writes are kept with them from now on; resolves to those a previous
   *  run kept and never settled (to publish again). */
  async keepEvents(): Promise<BusEvent[]> {
    return this.kept ? this.kept.start((name) => this.docStore(name)) : [];
  }

  /** An event kept with its write is settled (its owed listeners are done with it). */
  eventSettled(id: string): void { this.kept?.settled(id); }

  /** The workspace's folder (undefined in memory). */
  get dir(): string | undefined { return this.ws.dir; }

  store(name: string): Promise<Store> {
    return this.docStore(name).then(embeddedStore);
  }

  /** The nedb store behind a store, opened on first use. A store that fails to load answers
   *  503 naming the reason, and is tried again only after a back-off (1 s, doubling up to a
   *  minute): requests in between fail at once, holding nothing, so memory stays flat. */
  docStore(name: string): Promise<DocStore> {
    let store = this.stores.get(name);
    if (!store) {
      checkStoreName(name);
      const failed = this.loadFailures.get(name);
      if (failed && Date.now() < failed.retryAt) return Promise.reject(failed.error);
      const file = this.fileOf(name);
      store = DocStore.open({ filename: file, compactEvery: this.compactEvery }).then((s) => this.keeping(s, name));
      this.stores.set(name, store);
      store.then(() => this.loadFailures.delete(name), (err: unknown) => {
        if (this.stores.get(name) === store) this.stores.delete(name);
        const attempts = (failed?.attempts ?? 0) + 1;
        const wait = Math.min(LOAD_RETRY_MAX_MS, LOAD_RETRY_MS * 2 ** (attempts - 1));
        const reason = (err as Error)?.message ?? String(err);
        const error = new StorageUnavailableError(`The ${name} store of workspace '${this.ws.id}' could not be loaded from ${file ? dirname(file) : 'memory'}: ${reason}. Fix the file or its permissions; it is tried again in ${Math.ceil(wait / 1000)} s.`, file && dirname(file));
        this.loadFailures.set(name, { error, retryAt: Date.now() + wait, attempts });
      });
      store = store.catch(() => { throw this.loadFailures.get(name)!.error; });
      this.stores.set(name, store);
      const opening = store;
      opening.then((s) => { if (this.stores.get(name) === opening) this.opened.set(name, s); }, () => undefined);
    }
    return store;
  }

  openStore(name: string): Store | undefined {
    const doc = this.opened.get(name);
    return doc && embeddedStore(doc);
  }

  /** Makes `store` the store `name`, open and loaded (a fork's copy, fork.ts). */
  adoptStore(name: string, store: DocStore): void {
    checkStoreName(name);
    this.keeping(store, name);
    this.stores.set(name, Promise.resolve(store));
    this.opened.set(name, store);
  }

  private keeping(store: DocStore, name: string): DocStore {
    if (this.kept) { store.kept = { events: this.kept, name }; this.kept.opened(store); }
    return store;
  }

  async storeNames(): Promise<string[]> {
    const names = new Set(this.stores.keys());
    if (this.dir) {
      for (const f of await readdir(join(this.dir, 'stores')).catch(() => [] as string[])) if (f.endsWith('.db')) names.add(f.slice(0, -3));
      for (const f of await readdir(join(this.dir, 'collections')).catch(() => [] as string[])) if (f.endsWith('.db')) names.add(`collections/${f.slice(0, -3)}`);
    }
    return [...names].sort();
  }

  async dropStore(name: string): Promise<void> {
    const store = this.stores.get(name);
    this.stores.delete(name);
    this.opened.delete(name);
    if (store) await (await store).drop();
    else if (this.dir) await rm(this.fileOf(name)!, { force: true });
  }

  /** Forgets an open store without touching its file (a swap replaced or removed it): the next
   *  use loads it from the file again. */
  async forgetStore(name: string): Promise<void> {
    const store = this.stores.get(name);
    this.stores.delete(name);
    this.opened.delete(name);
    this.loadFailures.delete(name);
    if (store) await (await store.catch(() => undefined))?.detach();
  }

  async readExpiry<E>(): Promise<E | undefined> {
    if (!this.dir) return undefined;
    try {
      return JSON.parse(await readFile(join(this.dir, 'expiry.json'), 'utf8')) as E;
    } catch {
      return undefined;
    }
  }

  async writeExpiry(value: unknown): Promise<void> {
    if (!this.dir) return;
    const file = join(this.dir, 'expiry.json');
    if (value === undefined) { await rm(file, { force: true }); return; }
    await writeFile(`${file}.tmp`, JSON.stringify(value), { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  }

  /** The file of a store (undefined in memory). */
  fileOf(name: string): string | undefined {
    if (!this.dir) return undefined;
    return name.startsWith('collections/') ? join(this.dir, 'collections', `${name.slice(12)}.db`) : join(this.dir, 'stores', `${name}.db`);
  }

  async close(): Promise<string[]> {
    const problems: string[] = [];
    await Promise.all([...this.stores.entries()].map(async ([name, p]) => {
      const store = await p.catch(() => undefined);
      try { await store?.close(); } catch (err) { problems.push(`workspace '${this.ws.id}', ${name} store: ${(err as Error).message}`); }
    }));
    try {
      await this.kept?.close((name) => {
        const store = this.opened.get(name);
        return store ? store.holdsEvents : existsSync(this.fileOf(name)!);
      });
    } catch (err) {
      problems.push(`workspace '${this.ws.id}', list of stores holding events: ${(err as Error).message}`);
    }
    return problems;
  }
}
