// The embedded engine: workspaces in a data folder (`homebase.json` lists them,
// `workspaces/<id>/` holds each one's settings, keys and store files), or in memory without a
// folder. A process is alone with its folder (the lock sees to it), so nothing is told to
// anyone. The data folder's layout: docs/storage-layout.md.
import { mkdir, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SettingsStore } from '../settings-store.js';
import { crashPoint } from '../disk.js';
import { ALONE } from '../processes.js';
import type { EngineForkOptions, RegistryCatalog, RegistryData, StorageEngine } from '../engine.js';
import { Workspace, freshKeys, restrictToOwner, withoutControls, type WorkspaceKeys, type WorkspaceSettings } from '../workspace.js';
import { EmbeddedStores } from './stores.js';
import { recoverSwap } from './swap.js';
import { copyStores, fillStores } from './fork.js';

export class EmbeddedEngine implements StorageEngine {
  readonly processes = ALONE;

  /** `dataDir` undefined: in memory. `compactEvery`: ms between compactions of a store's file. */
  constructor(private readonly dataDir: string | undefined, private readonly compactEvery: number) {}

  async load(consoleToken: string | undefined, fresh: () => string): Promise<{ catalog: RegistryCatalog; workspaces: Workspace[] }> {
    const { dataDir } = this;
    if (dataDir) {
      // Owner only: the data folder holds the console token, keys, password hashes and all data.
      // A folder made earlier (or by the caller, under its umask) is brought in line at start.
      await mkdir(join(dataDir, 'workspaces'), { recursive: true, mode: 0o700 });
      await restrictToOwner(dataDir);
      await restrictToOwner(join(dataDir, 'workspaces'));
    }
    const store = await SettingsStore.open<RegistryData>(dataDir && join(dataDir, 'homebase.json'), { consoleToken: '', workspaces: [] });
    // `homebase.json` stays owner-only (0600): it holds the console token. lowdb writes a new file
    // and renames it over the old one, so the mode is set again after each write (the data
    // folder itself is 0700, so no one else could read it in between).
    const restrictFile = async () => { if (dataDir) await restrictToOwner(join(dataDir, 'homebase.json')); };
    const catalog: RegistryCatalog = {
      get data() { return store.data; },
      update: async (change) => { await store.update(change); await restrictFile(); },
      flush: () => store.flush(),
    };
    const token = consoleToken ?? (store.data.consoleToken || fresh());
    if (token !== store.data.consoleToken) await catalog.update((d) => { d.consoleToken = token; });
    else await restrictFile();
    const workspaces: Workspace[] = [];
    for (const info of store.data.workspaces) workspaces.push(await this.open(info._id, { name: info.name }));
    return { catalog, workspaces };
  }

  async adopt(): Promise<undefined> { return undefined; }

  create(id: string, name: string): Promise<Workspace> { return this.open(id, { name }); }

  /** On disk the fork's folder is filled (keys, store files) and its settings written once, last:
   *  a folder without settings is what a fork cut short left, and it is never registered. */
  async fork(source: Workspace, id: string, options: EngineForkOptions): Promise<{ ws: Workspace }> {
    const { name, snapshot } = options;
    if (typeof snapshot === 'string') throw new Error('fork: the embedded engine takes a snapshot\'s content, not its name');
    // The id is free, so a folder of that name is what a fork or create cut short by a crash
    // left (never registered, never acknowledged): it goes, or its stale stores and keys would
    // become the fork's. The settings are written once, last, before the fork is registered
    // (homebase.json): one flushed write fewer than writing default settings first.
    const dir = this.dirOf(id);
    if (dir) await rm(dir, { recursive: true, force: true });
    let ws: Workspace | undefined;
    try {
      ws = await this.open(id, { name, keys: options.keys, settingsLater: true });
      const createdAt = ws.settings.data.createdAt;
      let settings: WorkspaceSettings;
      if (snapshot) {
        await fillStores(storesOf(ws), snapshot.stores);
        settings = structuredClone(snapshot.settings);
      } else {
        settings = await copyStores(storesOf(source), storesOf(ws), options.skip);
      }
      await ws.settings.replace({ ...withoutControls(settings), name, createdAt }); // the clock and faults are no content
      crashPoint('fork:settings'); // kill -9 tests: everything written but the registration
      return { ws };
    } catch (err) {
      if (ws) await ws.close().catch(() => undefined);
      if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
  }

  async remove(): Promise<void> { /* the workspace's folder is all there is */ }

  announce(): void { /* a process alone with its folder */ }

  async close(): Promise<void> { /* nothing beyond the workspaces */ }

  /** Opens (or, when its folder is new, creates) a workspace. `settingsLater`: the caller writes
   *  the settings itself right after (a fork: its settings are the source's, known only once its
   *  stores are copied), so a new folder's default settings are not written first. */
  private async open(id: string, init: { name: string; keys?: WorkspaceKeys; settingsLater?: boolean }): Promise<Workspace> {
    const dir = this.dirOf(id);
    if (dir) {
      // An import, restore or reset cut short by a crash: finished if it had committed, else
      // undone, before anything is read (swap.ts).
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
    return new Workspace(id, dir, settings, keys, (ws) => new EmbeddedStores(ws, this.compactEvery));
  }

  private dirOf(id: string): string | undefined {
    return this.dataDir && join(this.dataDir, 'workspaces', id);
  }
}

/** The embedded side of a workspace this engine opened. */
const storesOf = (ws: Workspace): EmbeddedStores => ws.storage as EmbeddedStores;

/** The workspace's keys (`keys.json`), made (`given`, else fresh) when the folder has none. */
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
