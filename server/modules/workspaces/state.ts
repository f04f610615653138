// A workspace's whole content as one value (settings, every document store but sessions, the
// uploaded files), captured and swapped in wholesale: the engine under reset, snapshot restore
// and import. Swaps run one at a time per workspace, with the workspace busy (503) and after the
// requests already admitted have finished, so no request ever sees a mixture.
import model from '@seald-io/nedb/lib/model.js';
import type { AppContext } from '../context.js';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DocStore, type Doc, type StagedChange } from '../../storage/embedded/doc-store.js';
import { compactText } from '../../storage/embedded/datafile.js';
import { Swap } from '../../storage/embedded/swap.js';
import { withControlsOf, withoutControls, type Workspace, type WorkspaceSettings } from '../../storage/workspace.js';
import { waitForIdle } from '../request-log/index.js';
import { applyFiles, captureFiles, markWritten, planFiles, type FileSet } from './files.js';

/** Stores that a swap leaves alone: sessions outlive restores, so a suite's admin token
 *  survives (sessions of users absent from the new content fail verification by themselves).
 *  API keys and OAuth clients too: a restore never brings back a revoked one nor drops a live one. */
export const UNTOUCHED_STORES = new Set(['sessions', 'api_keys', 'oauth_clients', 'oauth_codes']);

/** How long a swap waits for admitted requests (a stalled upload must not block it forever). */
const DRAIN_TIMEOUT_MS = 2000;

export interface WorkspaceState {
  settings: WorkspaceSettings;
  /** Store name → its documents. Arrays and documents are never mutated once in a state. */
  stores: Map<string, Doc[]>;
  /** The uploaded files; undefined leaves the files folder as it is. */
  files?: FileSet;
  /** Stores to leave exactly as they are (reset with keepSchema keeps webhooks, scenarios...). */
  keep?: Set<string>;
}

export const isCollectionStore = (name: string) => name.startsWith('collections/');

/** What a store held right after it was last swapped in (or snapshotted), so that the next
 *  restore of the same content only undoes what changed since: nedb replaces documents on every
 *  write and never mutates them, so a document still identical by reference is unchanged. */
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

/** The workspace's current content. `copyDocs` false keeps references to the stored documents
 *  (enough for a rollback within one swap); true makes a state that later writes cannot touch. */
export async function captureState(ctx: AppContext, ws: Workspace, options: { copyDocs: boolean; files: boolean }): Promise<WorkspaceState> {
  const stores = new Map<string, Doc[]>();
  for (const name of await ws.storeNames()) {
    if (UNTOUCHED_STORES.has(name)) continue;
    if (ws.pg) { stores.set(name, await (await ws.store(name)).all()); continue; } // fresh copies already
    const store = await ws.docStore(name);
    const live = store.all();
    const docs = options.copyDocs ? live.map((d) => model.deepCopy(d)) : live;
    stores.set(name, docs);
    if (options.copyDocs) lastApplied.set(store, { source: docs, live: new Map(live.map((d) => [d._id, d])) });
  }
  return {
    settings: structuredClone(withoutControls(ws.settings.data)), // the clock and faults are no content
    stores,
    ...(options.files ? { files: await captureFiles(ctx, ws) } : {}),
  };
}

const queues = new WeakMap<Workspace, Promise<unknown>>();

/** Runs `fn` alone among the swaps, exports and snapshots of this workspace. */
export function exclusive<T>(ws: Workspace, fn: () => Promise<T>): Promise<T> {
  const result = (queues.get(ws) ?? Promise.resolve()).then(fn, fn);
  queues.set(ws, result.catch(() => undefined));
  return result;
}

/** Runs `fn` with the workspace busy (its API answers 503), once the requests admitted before
 *  have finished. Call inside `exclusive`. */
export async function whileBusy<T>(ws: Workspace, fn: () => Promise<T>): Promise<T> {
  ws.busy = true;
  try {
    await waitForIdle(ws, DRAIN_TIMEOUT_MS);
    return await fn();
  } finally {
    ws.busy = false;
  }
}

/** Swaps `state` in (call inside `whileBusy`): all of it or nothing, across kill -9 too.
 *  Stores missing from the state are emptied, or dropped for collections the new schema lacks.
 *  Every change is prepared first (a store refusing its content, a unique index, fails here and
 *  changes nothing), then, on disk, written beside the live files and switched in through one
 *  journal (storage/embedded/swap.ts), and only then applied in memory. */
export async function applyState(ctx: AppContext, ws: Workspace, given: WorkspaceState): Promise<void> {
  // The test controls (clock, faults) are no content: the workspace keeps its own.
  const state: WorkspaceState = { ...given, settings: withControlsOf(given.settings, ws.settings.data) };
  const collections = new Set(state.settings.collections.map((c) => `collections/${c._id}`));
  const leave = (name: string) => UNTOUCHED_STORES.has(name) || !!state.keep?.has(name);
  const existing = new Set(await ws.storeNames());
  /** Store name → its new documents, or null: the store goes. */
  const targets = new Map<string, Doc[] | null>();
  for (const [name, docs] of state.stores) {
    if (leave(name) || (docs.length === 0 && !existing.has(name))) continue; // nothing to empty
    targets.set(name, docs);
  }
  for (const name of existing) {
    if (state.stores.has(name) || leave(name)) continue;
    targets.set(name, isCollectionStore(name) && !collections.has(name) ? null : []);
  }
  if (ws.pg) {
    // On PostgreSQL: the stores and the settings in one transaction (storage/pg/workspaces.ts).
    const settingsChanged = JSON.stringify(ws.settings.data) !== JSON.stringify(state.settings);
    await ws.pg.workspaces.swap(ws.id, targets, settingsChanged ? state.settings : undefined);
    if (settingsChanged) ws.settings.adopt(state.settings);
    if (state.files) await applyFiles(ctx, ws, state.files);
    await ctx.registry.notifyReplaced(ws);
    return;
  }
  const open = new Map<string, DocStore>();
  for (const [name, docs] of targets) if (docs) open.set(name, await ws.docStore(name));
  const names = [...open.keys()].sort();

  // Hold every store's write queue (a delivery or an execution being written meanwhile waits).
  const held = async (i: number): Promise<Map<string, Doc[] | null>> => {
    if (i < names.length) return open.get(names[i])!.holdWrites(() => held(i + 1));
    return swapHeld(ctx, ws, state, targets, open);
  };
  const reload = await held(0);
  // Stores rebuilt or dropped: their file is already in place on disk; loaded afresh on next use.
  for (const [name, docs] of reload) {
    if (ws.dir) await ws.forgetStore(name);
    else { await ws.dropStore(name); if (docs) await (await ws.store(name)).replaceAll(docs); }
  }
  await ctx.registry.notifyReplaced(ws);
}

async function swapHeld(ctx: AppContext, ws: Workspace, state: WorkspaceState, targets: Map<string, Doc[] | null>, open: Map<string, DocStore>): Promise<Map<string, Doc[] | null>> {
  const staged: Array<{ name: string; change: StagedChange; docs: Doc[] }> = [];
  /** Stores whose file is written afresh and loaded again (dropped, or rebuilt without the indexes
   *  of the old schema: the database module adds the indexes the new schema wants). */
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
  const settingsChanged = JSON.stringify(ws.settings.data) !== JSON.stringify(state.settings);

  if (!ws.dir) {
    // In memory: nothing to journal; every change was checked above and cannot fail now.
    for (const { change } of staged) change.apply();
    if (settingsChanged) await ws.settings.replace(state.settings);
    if (state.files) await applyFiles(ctx, ws, state.files);
  } else {
    const files = state.files ? await planFiles(ctx, ws, state.files) : undefined;
    const swap = await Swap.begin(ws.dir);
    try {
      for (const { name, change } of staged) {
        if (change.rewrite) await swap.rewrite(ws.fileOf(name)!, change.text);
        else await swap.append(ws.fileOf(name)!, change.text);
      }
      for (const [name, docs] of reload) {
        if (docs) await swap.rewrite(ws.fileOf(name)!, compactText(docs, [{ fieldName: 'createdAt' }]));
        else swap.remove(ws.fileOf(name)!);
      }
      if (settingsChanged) await swap.rewrite(join(ws.dir, 'settings.json'), JSON.stringify(state.settings, null, 2));
      for (const path of files?.remove ?? []) swap.remove(path);
      for (const { path, src } of files?.put ?? []) {
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
      change.store.fileReplaced((await stat(ws.fileOf(name)!).catch(() => undefined))?.size ?? 0);
    }
    if (settingsChanged) ws.settings.adopt(state.settings);
    if (files) await markWritten(files);
  }
  for (const { name, docs } of staged) remember(open.get(name)!, docs);
  return reload;
}
