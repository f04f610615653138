// A workspace's whole content as one value (settings, every document store but sessions, the
// uploaded files), captured and swapped in wholesale: the engine under reset, snapshot restore
// and import. Swaps run one at a time per workspace, with the workspace busy (503) and after the
// requests already admitted have finished, so no request ever sees a mixture.
import model from '@seald-io/nedb/lib/model.js';
import type { AppContext } from '../../core/context.js';
import type { Doc, DocStore } from '../../storage/doc-store.js';
import type { Workspace, WorkspaceSettings } from '../../storage/workspace.js';
import { waitForIdle } from './request-log.js';
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

/** What a store held right after it was last swapped in, so that an unchanged store (a test that
 *  never touched it) is skipped on the next restore of the same content. nedb replaces documents
 *  on every write and never mutates them, so identical references mean identical content. */
const lastApplied = new WeakMap<DocStore, { source: Doc[]; live: Doc[] }>();

function unchangedSince(store: DocStore, docs: Doc[]): boolean {
  const seen = lastApplied.get(store);
  if (!seen || seen.source !== docs) return false;
  const live = store.all();
  if (live.length !== seen.live.length) return false;
  for (let i = 0; i < live.length; i++) if (live[i] !== seen.live[i]) return false;
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
    if (options.copyDocs) lastApplied.set(store, { source: docs, live });
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
    if (unchangedSince(store, docs)) continue;
    try {
      await store.replaceAll(docs);
    } catch (err) {
      // A collection store may carry a unique index the new schema lacks: start it afresh (the
      // database module rebuilds the indexes the schema wants when it next opens it).
      if (!isCollectionStore(name)) throw err;
      await ws.dropStore(name);
      await (await ws.store(name)).replaceAll(docs);
    }
    const live = (await ws.store(name)).all();
    lastApplied.set(await ws.store(name), { source: docs, live });
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
