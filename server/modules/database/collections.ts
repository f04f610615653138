// Collection definitions (kept in the workspace settings): a cached id → definition lookup,
// create / update / delete, and the per-workspace lock every schema change runs under.
import type { Workspace, WorkspaceSettings } from '../../storage/workspace.js';
import type { SettingsWriter } from '../../storage/settings-store.js';
import { ApiError } from '../../core/errors.js';
import { idFoldKey } from '../../core/ids.js';
import type { CollectionDef, CollectionSetting, FieldDef } from '../../shared/models.js';
import type { ChangeMode } from '../../core/change-mode.js';

/** Setting used when a collection is created without one (or without some keys). */
export const DEFAULT_SETTING: CollectionSetting = { read: 'private', write: 'private', update: 'private' };

// settings.update swaps in a new data object, so the lookup is rebuilt whenever it changes.
// Not server state: a memo per immutable list of collection definitions.
const lookups = new WeakMap<object, Map<string, CollectionDef>>();

function lookup(ws: Workspace): Map<string, CollectionDef> {
  const data = ws.settings.data;
  let map = lookups.get(data);
  if (!map) {
    map = new Map((data.collections ?? []).map((c) => [c._id, c]));
    lookups.set(data, map);
  }
  return map;
}

export function findCollection(ws: Workspace, id: string): CollectionDef | undefined {
  return lookup(ws).get(id);
}

/** The collection, or 404. */
export function getCollection(ws: Workspace, id: string): CollectionDef {
  const def = findCollection(ws, id);
  if (!def) throw ApiError.notFound('Collection', id);
  return def;
}

export function listCollections(ws: Workspace): CollectionDef[] {
  return ws.settings.data.collections ?? [];
}

export type SchemaWriter = SettingsWriter<WorkspaceSettings>;

/** Schema changes touch both the settings and a records store (indexes): one at a time per
 *  workspace, across processes on PostgreSQL too, each on the latest schema (re-read at its
 *  start). `fn` saves through the writer it is given. */
export function withSchemaLock<T>(ws: Workspace, fn: (write: SchemaWriter) => Promise<T>): Promise<T> {
  return ws.settings.section(fn);
}

/** Replaces (or appends) one collection definition and saves the settings (within withSchemaLock). */
export async function saveCollection(ws: Workspace, write: SchemaWriter, def: CollectionDef): Promise<CollectionDef> {
  await write((d) => {
    const list = d.collections ?? (d.collections = []);
    const i = list.findIndex((c) => c._id === def._id);
    if (i === -1) list.push(def); else list[i] = def;
  });
  return getCollection(ws, def._id);
}

export interface CollectionInput { _id: string; name?: string; setting?: CollectionPatch['setting']; fields?: FieldDef[] }

export function createCollection(ws: Workspace, input: CollectionInput): Promise<CollectionDef> {
  return withSchemaLock(ws, async (write) => {
    if (findCollection(ws, input._id)) throw ApiError.conflict(`Collection '${input._id}' already exists`, { field: '_id' });
    // A collection's id names its records file: on a case-insensitive file system (macOS, Windows)
    // `People` beside `people` would share it, and the store dropped below would be the other's.
    const key = idFoldKey(input._id);
    const twin = listCollections(ws).find((c) => idFoldKey(c._id) === key);
    if (twin) {
      throw ApiError.conflict(`Collection '${twin._id}' already exists; collection ids may not differ only in case (they name files on case-insensitive file systems)`, { field: '_id' });
    }
    const now = ws.nowIso();
    const def: CollectionDef = {
      _id: input._id,
      ...collectionHead(input._id, input),
      fields: input.fields ?? [], views: [], indexes: [],
      createdAt: now, updatedAt: now,
    };
    // A store left behind by an earlier collection of the same id is not inherited.
    await ws.dropStore(`collections/${def._id}`);
    return saveCollection(ws, write, def);
  });
}

export interface CollectionPatch { name?: string; setting?: Partial<Omit<CollectionSetting, 'remove'>> & { remove?: CollectionSetting['remove'] | null } }

/** A collection's own settings, as a creation or a replacement gives them: the name defaults to
 *  the id, the access rules missing to DEFAULT_SETTING's. */
function collectionHead(id: string, input: CollectionPatch): Pick<CollectionDef, 'name' | 'setting'> {
  return { name: input.name ?? id, setting: mergeSetting(DEFAULT_SETTING, input.setting) };
}

/** Changes a collection's own settings: the ones given (`merge`), or all of them (`replace`, as a
 *  creation would set them). Its fields, views and indexes are not touched. */
export function updateCollection(ws: Workspace, id: string, patch: CollectionPatch, mode: ChangeMode = 'merge'): Promise<CollectionDef> {
  return withSchemaLock(ws, async (write) => {
    const def = getCollection(ws, id);
    return saveCollection(ws, write, {
      ...def,
      ...(mode === 'replace' ? collectionHead(id, patch) : {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.setting ? { setting: mergeSetting(def.setting, patch.setting) } : {}),
      }),
      updatedAt: ws.nowIso(),
    });
  });
}

/** Removes the definition (fields, views, indexes with it) and drops the records store. */
export function deleteCollection(ws: Workspace, id: string): Promise<void> {
  return withSchemaLock(ws, async (write) => {
    getCollection(ws, id);
    // A reference field elsewhere would point at nothing (and the workspace's export would no
    // longer import): the field goes first.
    for (const c of listCollections(ws)) {
      if (c._id === id) continue;
      const ref = c.fields.find((f) => f.type === 'reference' && (f.options as { collection?: string } | undefined)?.collection === id);
      if (ref) throw ApiError.conflict(`Collection '${id}' is referenced by field '${ref._id}' of '${c._id}'; delete or change that field first`, { collection: c._id, field: ref._id });
    }
    await write((d) => { d.collections = (d.collections ?? []).filter((c) => c._id !== id); });
    await ws.dropStore(`collections/${id}`);
  });
}

/** Given keys replace, absent keys stay; `remove: null` goes back to following `update`. */
function mergeSetting(base: CollectionSetting, given: CollectionPatch['setting'] | undefined): CollectionSetting {
  const out: CollectionSetting = { ...base };
  if (!given) return out;
  if (given.read) out.read = given.read;
  if (given.write) out.write = given.write;
  if (given.update) out.update = given.update;
  if (given.remove === null) delete out.remove;
  else if (given.remove) out.remove = given.remove;
  return out;
}
