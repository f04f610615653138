// The records store of a collection and its indexes: the store always carries the indexes its
// schema asks for (`_owner`, each unique field, each index definition), checked whenever the
// store is handed out, so they come back after a restart, a restore or an import.
import type { Workspace } from '../../storage/workspace.js';
import { indexKey } from '../../storage/store.js';
import type { Store } from '../../storage/store.js';
import { logger } from '../../core/logger.js';
import type { CollectionDef } from '../../shared/models.js';

/** Store index key → unique, as the collection's schema wants them. */
export function desiredIndexes(def: Pick<CollectionDef, 'fields' | 'indexes'>): Map<string, boolean> {
  const out = new Map<string, boolean>([['_owner', false]]);
  const want = (key: string, unique: boolean) => out.set(key, unique || (out.get(key) ?? false));
  for (const f of def.fields) if (f.unique) want(f._id, true);
  for (const i of def.indexes) want(indexKey(i.fields.join(',')), i.unique);
  return out;
}

// The definition each open store was last brought in line with (definitions are replaced, never
// mutated, so identity tells whether anything changed), and the sync in flight. Not server
// state: bookkeeping of the store object itself (idempotent work done for an immutable
// definition), gone with the store.
const synced = new WeakMap<Store, { def: CollectionDef; done: Promise<void>; ready: boolean }>();

/** recordsStore without waiting: the store when it is open and already in line with `def`. */
export function recordsStoreNow(ws: Workspace, def: CollectionDef): Store | undefined {
  const store = ws.openStore(`collections/${def._id}`);
  const state = store && synced.get(store);
  return state && state.def === def && state.ready ? store : undefined;
}

/** The collection's records store, its indexes in line with the schema. */
export async function recordsStore(ws: Workspace, def: CollectionDef): Promise<Store> {
  // Open and in line with `def`, the usual case: no turn spent on the store's own promise.
  const open = recordsStoreNow(ws, def);
  if (open) return open;
  const store = await ws.records(def._id);
  const state = synced.get(store);
  if (state?.def === def) {
    if (!state.ready) await state.done;
    return store;
  }
  const next = { def, ready: false, done: Promise.resolve() };
  next.done = (state?.done ?? Promise.resolve()).then(() => syncIndexes(store, desiredIndexes(def), false))
    .catch((err) => logger.warn({ collection: def._id, err: (err as Error).message }, 'could not sync records indexes'))
    .then(() => { next.ready = true; });
  synced.set(store, next);
  await next.done;
  return store;
}

/** Brings a store's indexes in line with `desired`. Strict: the first failure (a unique index
 *  over duplicate values → 409) undoes what this call changed and is thrown. Lenient (opening
 *  a store): a failing index is logged and skipped, so reads keep working. */
export async function syncIndexes(store: Store, desired: Map<string, boolean>, strict: boolean): Promise<void> {
  const current = new Map((await store.listIndexes()).map((i) => [i.fieldName, i.unique]));
  const added: string[] = [];
  const replaced: Array<[string, boolean]> = [];
  for (const [key, unique] of desired) {
    if (key === '_id' || key === 'createdAt') continue;
    const has = current.get(key);
    if (has === unique) continue;
    try {
      if (has !== undefined) { await store.removeIndex(key); replaced.push([key, has]); }
      await store.ensureIndex({ fieldName: key, unique });
      added.push(key);
    } catch (err) {
      if (!strict) { logger.warn({ index: key, err: (err as Error).message }, 'could not build a records index'); continue; }
      for (const k of added) await store.removeIndex(k).catch(() => undefined);
      for (const [k, u] of replaced) await store.ensureIndex({ fieldName: k, unique: u }).catch(() => undefined);
      throw err;
    }
  }
  for (const key of current.keys()) {
    if (!desired.has(key) && key !== 'createdAt') await store.removeIndex(key);
  }
}

/** Checks, for a schema change, that the store accepts the new index set (409 otherwise, with
 *  nothing changed), and marks the store as in line with the new definition. */
export async function applyIndexes(ws: Workspace, current: CollectionDef, next: Pick<CollectionDef, 'fields' | 'indexes'>): Promise<void> {
  const store = await recordsStore(ws, current);
  await syncIndexes(store, desiredIndexes(next), true);
}
