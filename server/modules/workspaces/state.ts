// A workspace's whole content as one value (settings, every document store but sessions, the
// uploaded files), captured and swapped in wholesale: the engine under reset, snapshot restore
// and import. Swaps run one at a time per workspace, with the workspace busy (503) and after the
// requests already admitted have finished, so no request ever sees a mixture.
import type { AppContext } from '../context.js';
import type { Doc } from '../../storage/query.js';
import type { SwapFiles } from '../../storage/workspace-backend.js';
import { withControlsOf, withoutControls, type Workspace, type WorkspaceSettings } from '../../storage/workspace.js';
import { waitForIdle } from '../request-log/index.js';
import { applyFiles, captureFiles, markWritten, planFiles, type FileSet, type FilesPlan } from './files.js';

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

/** The workspace's current content. `copyDocs` false keeps references to the stored documents
 *  (enough for a rollback within one swap); true makes a state that later writes cannot touch. */
export async function captureState(ctx: AppContext, ws: Workspace, options: { copyDocs: boolean; files: boolean }): Promise<WorkspaceState> {
  const stores = await ws.backend.captureStores(UNTOUCHED_STORES, options.copyDocs);
  return {
    settings: structuredClone(withoutControls(ws.settings.data)), // the clock and faults are no content
    stores,
    ...(options.files ? { files: await captureFiles(ctx, ws) } : {}),
  };
}

/** Runs `fn` alone among the swaps, exports and snapshots of this workspace. */
export function exclusive<T>(ctx: AppContext, ws: Workspace, fn: () => Promise<T>): Promise<T> {
  const { queues } = ctx.state.workspaces;
  const result = (queues.get(ws) ?? Promise.resolve()).then(fn, fn);
  queues.set(ws, result.catch(() => undefined));
  return result;
}

/** Runs `fn` with the workspace busy (its API answers 503), once the requests admitted before
 *  have finished. Call inside `exclusive`. */
export async function whileBusy<T>(ctx: AppContext, ws: Workspace, fn: () => Promise<T>): Promise<T> {
  ws.busy = true;
  try {
    await waitForIdle(ctx, ws, DRAIN_TIMEOUT_MS);
    return await fn();
  } finally {
    ws.busy = false;
  }
}

/** Swaps `state` in (call inside `whileBusy`): all of it or nothing, across kill -9 too (the
 *  engine's swap, storage/workspace-backend.ts). Stores missing from the state are emptied, or
 *  dropped for collections the new schema lacks. */
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
  const files: SwapFiles | undefined = state.files && {
    plan: () => planFiles(ctx, ws, state.files!),
    written: (plan) => markWritten(plan as FilesPlan),
    apply: () => applyFiles(ctx, ws, state.files!),
  };
  await ws.backend.swap(targets, state.settings, files);
  await ctx.registry.notifyReplaced(ws);
}
