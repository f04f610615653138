// A workspace's whole content as one value (settings, every document store but sessions, the
// uploaded files), captured and swapped in wholesale: the engine under reset, snapshot restore
// and import. Swaps run one at a time per workspace, with the workspace busy (503) and after the
// requests already admitted have finished, so no request ever sees a mixture.
import model from '@seald-io/nedb/lib/model.js';
import type { AppContext } from '../context.js';
import type { Doc, DocStore } from '../../storage/doc-store.js';
import type { Workspace, WorkspaceSettings } from '../../storage/workspace.js';
import { waitForIdle } from '../request-log/request-log.js';
import { applyFiles, captureFiles, type FileSet } from './files.js';

/** Stores that a swap leaves alone: sessions outlive restores, so a suite's admin token
 *  survives (sessions of users absent from the new content fail verification by themselves). */
export const UNTOUCHED_STORES = new Set(['sessions']);

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

/** Puts `docs` back into a store that held them when last applied, writing only the documents
 *  changed since. Returns false when it cannot (other content, too many changes, a conflict). */
async function restoreChanged(store: DocStore, docs: Doc[]): Promise<boolean> {
  const seen = lastApplied.get(store);
  if (!seen || seen.source !== docs) return false;
  const changed: string[] = [];
  let same = 0;
  for (const d of store.all()) {
    if (seen.live.get(d._id) === d) same++;
    else if (changed.push(d._id) > INCREMENTAL_LIMIT) return false;
  }
  const deleted: string[] = [];
  if (same < seen.live.size) {
    for (const id of seen.live.keys()) if (!store.get(id)) deleted.push(id);
    if (changed.length + deleted.length > INCREMENTAL_LIMIT) return false;
  }
  if (changed.length === 0 && deleted.length === 0) return true;
  const source = indexOf(docs);
  try {
    for (const id of changed) if (!source.has(id)) await store.remove(id);
    // nedb stores copies of what it is given: the snapshot's documents stay untouched.
    for (const id of changed) if (source.has(id)) await store.replace(id, source.get(id)!);
    for (const id of deleted) await store.insert(source.get(id)!);
  } catch {
    return false; // e.g. two records that swapped a unique value: the caller rewrites the store
  }
  remember(store, docs);
  return true;
}

/** The workspace's current content. `copyDocs` false keeps references to the stored documents
 *  (enough for a rollback within one swap); true makes a state that later writes cannot touch. */
export async function captureState(ctx: AppContext, ws: Workspace, options: { copyDocs: boolean; files: boolean }): Promise<WorkspaceState> {
  const stores = new Map<string, Doc[]>();
  for (const name of await ws.storeNames()) {
    if (UNTOUCHED_STORES.has(name)) continue;
    const store = await ws.store(name);
    const live = store.all();
    const docs = options.copyDocs ? live.map((d) => model.deepCopy(d)) : live;
    stores.set(name, docs);
    if (options.copyDocs) lastApplied.set(store, { source: docs, live: new Map(live.map((d) => [d._id, d])) });
  }
  return {
    settings: structuredClone(ws.settings.data),
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

/** Swaps `state` in (call inside `whileBusy`). Stores missing from the state are emptied, or
 *  dropped for collections the new schema lacks. If a store refuses its content (a unique
 *  index), the stores already swapped are put back before the error is rethrown. */
export async function applyState(ctx: AppContext, ws: Workspace, state: WorkspaceState): Promise<void> {
  const before = await captureState(ctx, ws, { copyDocs: false, files: false });
  try {
    await swapStores(ws, state);
  } catch (err) {
    await swapStores(ws, before).catch(() => undefined);
    throw err;
  }
  if (JSON.stringify(ws.settings.data) !== JSON.stringify(state.settings)) await ws.settings.replace(state.settings);
  if (state.files) await applyFiles(ctx, ws, state.files);
  await ctx.registry.notifyReplaced(ws);
}

async function swapStores(ws: Workspace, state: WorkspaceState): Promise<void> {
  const collections = new Set(state.settings.collections.map((c) => `collections/${c._id}`));
  const leave = (name: string) => UNTOUCHED_STORES.has(name) || !!state.keep?.has(name);
  const existing = new Set(await ws.storeNames());
  for (const [name, docs] of state.stores) {
    if (leave(name) || (docs.length === 0 && !existing.has(name))) continue; // nothing to empty
    const store = await ws.store(name);
    if (await restoreChanged(store, docs)) continue;
    try {
      await store.replaceAll(docs);
    } catch (err) {
      // A collection store may carry a unique index the new schema lacks: start it afresh (the
      // database module rebuilds the indexes the schema wants when it next opens it).
      if (!isCollectionStore(name)) throw err;
      await ws.dropStore(name);
      await (await ws.store(name)).replaceAll(docs);
    }
    remember(await ws.store(name), docs);
  }
  for (const name of await ws.storeNames()) {
    if (state.stores.has(name) || leave(name)) continue;
    if (isCollectionStore(name) && !collections.has(name)) await ws.dropStore(name);
    else {
      const store = await ws.store(name);
      if (store.size > 0) await store.replaceAll([]);
    }
  }
}
