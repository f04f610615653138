// A workspace's whole content on the embedded stores. Captured from the stores in memory; swapped
// in all or nothing, across kill -9 too: every change is prepared first (a store refusing its
// content, a unique index, fails here and changes nothing), then, on disk, written beside the
// live files and switched in through one journal (swap.ts), and only then applied in memory.
import model from '@seald-io/nedb/lib/model.js';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DocStore, type Doc, type StagedChange } from './doc-store.js';
import { compactText } from './datafile.js';
import { Swap } from './swap.js';
import type { SwapFiles, WorkspaceBackend } from '../workspace-backend.js';
import type { Workspace, WorkspaceSettings } from '../workspace.js';
import type { EmbeddedStores } from './stores.js';

const isCollectionStore = (name: string) => name.startsWith('collections/');

/** What a store held right after it was last swapped in (or captured as a copy), so that the
 *  next swap of the same content only undoes what changed since: nedb replaces documents on
 *  every write and never mutates them, so a document still identical by reference is unchanged. */
interface Applied { source: Doc[]; live: Map<string, Doc> }
const lastApplied = new WeakMap<DocStore, Applied>();
const byId = new WeakMap<Doc[], Map<string, Doc>>();

function remember(store: DocStore, source: Doc[]): void {
  const live = new Map<string, Doc>();
  for (const d of store.all()) live.set(d._id, d);
  lastApplied.set(store, { source, live });
}

function indexOf(docs: Doc[]): Map<string, Doc> {
  let m = byId.get(docs);
  if (!m) { m = new Map(docs.map((d) => [d._id, d])); byId.set(docs, m); }
  return m;
}

/** Above this many changed documents a whole rewrite is cheaper than one write per document. */
const INCREMENTAL_LIMIT = 500;

/** The documents to write to bring a store that held `docs` when last applied back to them,
 *  as a staged change (only what changed since). Undefined when it cannot (other content, too
 *  many changes, a unique conflict between the changes). */
function stageChanged(store: DocStore, docs: Doc[]): StagedChange | undefined {
  const seen = lastApplied.get(store);
  if (!seen || seen.source !== docs) return undefined;
  const changed: string[] = [];
  let same = 0;
  for (const d of store.all()) {
    if (seen.live.get(d._id) === d) same++;
    else if (changed.push(d._id) > INCREMENTAL_LIMIT) return undefined;
  }
  const deleted: string[] = [];
  if (same < seen.live.size) {
    for (const id of seen.live.keys()) if (!store.get(id)) deleted.push(id);
    if (changed.length + deleted.length > INCREMENTAL_LIMIT) return undefined;
  }
  const source = indexOf(docs);
  const put: Doc[] = [];
  const gone: string[] = [];
  for (const id of changed) if (source.has(id)) put.push(source.get(id)!); else gone.push(id);
  for (const id of deleted) put.push(source.get(id)!);
  try {
    // Copies of the snapshot's documents are stored: the snapshot stays untouched.
    return store.stageChanges(put, gone);
  } catch {
    return undefined; // e.g. two records that swapped a unique value: the caller rewrites the store
  }
}

export class EmbeddedWorkspaceBackend implements WorkspaceBackend {
  constructor(private readonly ws: Workspace, private readonly stores: EmbeddedStores) {}

  async captureStores(skip: ReadonlySet<string>, copyDocs: boolean): Promise<Map<string, Doc[]>> {
    const stores = new Map<string, Doc[]>();
    for (const name of await this.ws.storeNames()) {
      if (skip.has(name)) continue;
      const store = await this.stores.docStore(name);
      const live = store.all();
      const docs = copyDocs ? live.map((d) => model.deepCopy(d)) : live;
      stores.set(name, docs);
      if (copyDocs) lastApplied.set(store, { source: docs, live: new Map(live.map((d) => [d._id, d])) });
    }
    return stores;
  }

  async swap(targets: Map<string, Doc[] | null>, settings: WorkspaceSettings, files?: SwapFiles): Promise<void> {
    const ws = this.ws;
    const open = new Map<string, DocStore>();
    for (const [name, docs] of targets) if (docs) open.set(name, await this.stores.docStore(name));
    const names = [...open.keys()].sort();

    // Hold every store's write queue (a delivery or an execution being written meanwhile waits).
    const held = async (i: number): Promise<Map<string, Doc[] | null>> => {
      if (i < names.length) return open.get(names[i])!.holdWrites(() => held(i + 1));
      return this.swapHeld(targets, settings, files, open);
    };
    const reload = await held(0);
    // Stores rebuilt or dropped: their file is already in place on disk; loaded afresh on next use.
    for (const [name, docs] of reload) {
      if (ws.dir) await this.stores.forgetStore(name);
      else { await ws.dropStore(name); if (docs) await (await ws.store(name)).replaceAll(docs); }
    }
  }

  private async swapHeld(targets: Map<string, Doc[] | null>, given: WorkspaceSettings, files: SwapFiles | undefined,
    open: Map<string, DocStore>): Promise<Map<string, Doc[] | null>> {
    const ws = this.ws;
    const settings = JSON.stringify(ws.settings.data) !== JSON.stringify(given) ? given : undefined;
    const staged: Array<{ name: string; change: StagedChange; docs: Doc[] }> = [];
    /** Stores whose file is written afresh and loaded again (dropped, or rebuilt without the
     *  indexes of the old schema: the database module adds the indexes the new schema wants). */
    const reload = new Map<string, Doc[] | null>();
    for (const [name, docs] of targets) {
      if (!docs) { reload.set(name, null); continue; }
      const store = open.get(name)!;
      const incremental = stageChanged(store, docs);
      if (incremental) { if (incremental.text) staged.push({ name, change: incremental, docs }); continue; }
      if (docs.length === 0 && store.size === 0) continue;
      try {
        staged.push({ name, change: store.stageReplaceAll(docs), docs });
      } catch (err) {
        if (!isCollectionStore(name)) throw err;
        // A collection store may carry a unique index the new schema lacks: start it afresh.
        const bare = await DocStore.open({});
        await bare.replaceAll(docs); // the same uniqueness check as a fresh store's (the _id)
        reload.set(name, docs);
      }
    }

    if (!ws.dir) {
      // In memory: nothing to journal; every change was checked above and cannot fail now.
      for (const { change } of staged) change.apply();
      if (settings) await ws.settings.replace(settings);
      if (files) await files.apply();
    } else {
      const plan = files ? await files.plan() : undefined;
      const swap = await Swap.begin(ws.dir);
      try {
        for (const { name, change } of staged) {
          if (change.rewrite) await swap.rewrite(this.stores.fileOf(name)!, change.text);
          else await swap.append(this.stores.fileOf(name)!, change.text);
        }
        for (const [name, docs] of reload) {
          if (docs) await swap.rewrite(this.stores.fileOf(name)!, compactText(docs, [{ fieldName: 'createdAt' }]));
          else swap.remove(this.stores.fileOf(name)!);
        }
        if (settings) await swap.rewrite(join(ws.dir, 'settings.json'), JSON.stringify(settings, null, 2));
        for (const path of plan?.remove ?? []) swap.remove(path);
        for (const { path, src } of plan?.put ?? []) {
          if ('data' in src) await swap.rewrite(path, src.data); else await swap.copy(path, src.path);
        }
      } catch (err) {
        await swap.abandon();
        throw err;
      }
      await swap.commit();
      // On disk now: the same changes in memory.
      for (const { name, change } of staged) {
        change.apply();
        change.store.fileReplaced((await stat(this.stores.fileOf(name)!).catch(() => undefined))?.size ?? 0);
      }
      if (settings) ws.settings.adopt(settings);
      if (plan) await files!.written(plan);
    }
    for (const { name, docs } of staged) remember(open.get(name)!, docs);
    return reload;
  }
}
