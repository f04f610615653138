// A collection's schema without HTTP: fields, views and indexes. Existing records are never
// rewritten by a schema change; validation applies to writes from then on, and a change that
// needs a unique index fails with 409 (nothing changed) when existing records collide.
import type { z } from 'zod';
import type { Workspace } from '../../storage/workspace.js';
import { ApiError } from '../../core/errors.js';
import { UniqueViolationError } from '../../storage/errors.js';
import { ID_PATTERN, ID_RULE, newId } from '../../core/ids.js';
import { assertReadOnlyKept } from '../../core/read-only.js';
import type { ChangeMode } from '../../core/change-mode.js';
import { isReservedKey } from '../../core/keys.js';
import { parseSort, validateObjectFilter } from '../../core/list-query.js';
import type { CollectionDef, FieldDef, IndexDef, ViewDef } from '../../shared/models.js';
import { findCollection, getCollection, saveCollection, withSchemaLock, type SchemaWriter } from './collections.js';
import { applyIndexes } from './indexes.js';
import { checkValue, fieldError } from './validation.js';
import type { FieldError } from '../../shared/error-codes.js';
import { typeOfFor } from './service.js';
import type { NewFieldBody, FieldPatchBody, NewIndexBody, NewViewBody, ViewPatchBody } from './schemas.js';

/** Field ids the server keeps on every record. */
export const RESERVED_FIELDS = new Set(['createdAt', 'updatedAt']);
/** Fields always indexed: an index on one of them alone is refused. */
export const UNINDEXABLE = new Set(['_id', 'createdAt']);

/** Saves a changed schema after the store accepted its index set (409 otherwise). */
async function commit(ws: Workspace, write: SchemaWriter, def: CollectionDef, change: Partial<Pick<CollectionDef, 'fields' | 'views' | 'indexes'>>): Promise<CollectionDef> {
  const next: CollectionDef = { ...def, ...change, updatedAt: ws.nowIso() };
  if (change.fields || change.indexes) {
    try {
      await applyIndexes(ws, def, next);
    } catch (err) {
      if (err instanceof UniqueViolationError) throw ApiError.conflict('Existing records have duplicate values for this unique field or index', err.details);
      throw err;
    }
  }
  return saveCollection(ws, write, next);
}

function find<T extends { _id: string }>(list: T[], id: string, what: string): T {
  const item = list.find((x) => x._id === id);
  if (!item) throw ApiError.notFound(what, id);
  return item;
}

// ---- fields ----------------------------------------------------------------------------

export function createField(ws: Workspace, collectionId: string, body: z.infer<typeof NewFieldBody>): Promise<FieldDef> {
  return withSchemaLock(ws, async (write) => {
    const def = getCollection(ws, collectionId);
    const field = buildField(ws, collectionId, def.fields, body);
    await commit(ws, write, def, { fields: [...def.fields, field] });
    return field;
  });
}

/** A new field definition checked against the collection's other fields (409 for a taken id). */
function buildField(ws: Workspace, collectionId: string, others: FieldDef[], body: z.infer<typeof NewFieldBody>): FieldDef {
  const id = body._id ?? body.name;
  if (id === undefined) throw ApiError.invalidField('_id', 'required', "'_id' is required: the field's key in records (or give a 'name' that can serve as one)");
  if (!body._id && !ID_PATTERN.test(id)) {
    throw ApiError.invalidField('name', 'format', `'name' ${ID_RULE} when no '_id' is given (it becomes the field's key)`);
  }
  if (RESERVED_FIELDS.has(id)) throw ApiError.invalidField('_id', 'invalid', `'_id' cannot be '${id}': the server keeps it on every record`);
  // Lists refuse these names in filters, sorts and fields, and the store's indexes would read
  // Object.prototype's member for every record lacking the key: not usable as a field.
  if (isReservedKey(id)) {
    throw ApiError.invalidField(body._id ? '_id' : 'name', 'invalid', `'${body._id ? '_id' : 'name'}' cannot be '${id}': it names a built-in property of JavaScript objects`);
  }
  if (others.some((f) => f._id === id)) throw ApiError.conflict(`Field '${id}' already exists`, { field: '_id' });
  const now = ws.nowIso();
  return checkField(ws, { ...body, _id: id, name: body.name ?? id, createdAt: now, updatedAt: now } as FieldDef, collectionId);
}

/** The `fields` given with `POST /database` (parsed with NewFieldBody): each checked as `POST .../fields` does,
 *  a problem reported at its place in the body (`fields.1.type`), a repeated id as a 422. */
export function newCollectionFields(ws: Workspace, collectionId: string, given: Array<z.infer<typeof NewFieldBody>>): FieldDef[] {
  const out: FieldDef[] = [];
  given.forEach((item, i) => {
    const prefix = `fields.${i}`;
    try {
      out.push(buildField(ws, collectionId, out, item));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'CONFLICT') throw ApiError.invalidField(`${prefix}._id`, 'invalid', `'${prefix}._id' repeats the key of an earlier field; each field's key must be unique`);
      throw rootedAt(err, prefix);
    }
  });
  return out;
}

/** A 422 about a body's field, re-rooted under `prefix` (`type` → `fields.1.type`). */
function rootedAt(err: unknown, prefix: string): unknown {
  if (!(err instanceof ApiError) || err.code !== 'VALIDATION_ERROR') return err;
  const list = (err.details?.errors as FieldError[] | undefined) ?? [];
  return ApiError.validation(list.map((e) => {
    const field = e.field ? `${prefix}.${e.field}` : prefix;
    const quoted = `'${e.field}'`;
    const message = e.message?.startsWith(quoted) ? `'${field}'${e.message.slice(quoted.length)}` : `'${field}': ${e.message ?? ''}`;
    return { field, reason: e.reason, message };
  }));
}

/** Changes a field's settings: those sent (`merge`), or all of them (`replace`: the body as a
 *  creation takes it, `type` required, the settings not sent removed, `name` back to the key). */
export function updateField(ws: Workspace, collectionId: string, fieldId: string, body: z.infer<typeof FieldPatchBody>, mode: ChangeMode = 'merge'): Promise<FieldDef> {
  return withSchemaLock(ws, async (write) => {
    const def = getCollection(ws, collectionId);
    const old = find(def.fields, fieldId, 'Field');
    assertReadOnlyKept(body, ['_id'], old); // the key in records
    const base = mode === 'replace' ? { name: fieldId, createdAt: old.createdAt } : old;
    const merged: FieldDef = { ...base, ...stripUndefined(body), _id: fieldId, updatedAt: ws.nowIso() } as FieldDef;
    if (body.default === null) delete merged.default;
    const field = checkField(ws, merged, collectionId);
    await commit(ws, write, def, { fields: def.fields.map((f) => (f._id === fieldId ? field : f)) });
    return field;
  });
}

export function deleteField(ws: Workspace, collectionId: string, fieldId: string): Promise<void> {
  return deletePart(ws, collectionId, 'fields', fieldId, 'Field');
}

/** Removes one field, view or index of a collection (404 if it has none of that id). */
function deletePart(ws: Workspace, collectionId: string, part: 'fields' | 'views' | 'indexes', id: string, what: string): Promise<void> {
  return withSchemaLock(ws, async (write) => {
    const def = getCollection(ws, collectionId);
    const list: Array<{ _id: string }> = def[part];
    find(list, id, what);
    await commit(ws, write, def, { [part]: list.filter((x) => x._id !== id) });
  });
}

/** Type-specific settings and the default value. */
function checkField(ws: Workspace, field: FieldDef, collectionId: string): FieldDef {
  const o = field.options ?? {};
  if (field.type === 'enum' && !o.values?.length) throw ApiError.invalidField('options.values', 'required', "'options.values' is required: an enum field lists its allowed values");
  if (field.type === 'reference') {
    if (typeof o.collection !== 'string') throw ApiError.invalidField('options.collection', 'required', "'options.collection' is required: the id of the collection a reference field points at");
    if (o.collection !== collectionId && !findCollection(ws, o.collection)) throw ApiError.invalidField('options.collection', 'invalid', `'options.collection' names no collection: '${o.collection}' does not exist`);
  }
  if (field.unique && (field.type === 'json' || field.type === 'array')) throw ApiError.invalidField('unique', 'invalid', `'unique' cannot be true for a ${field.type} field`);
  if (field.default !== undefined && field.default !== null) {
    const reason = checkValue(field, field.default);
    if (reason) throw ApiError.validation(fieldError(field, reason, field.default, 'default'));
  }
  const out: Record<string, unknown> = { _id: field._id, name: field.name, type: field.type };
  for (const key of ['required', 'unique', 'default', 'options'] as const) if (field[key] !== undefined) out[key] = field[key];
  return { ...out, createdAt: field.createdAt, updatedAt: field.updatedAt } as FieldDef;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

// ---- views -----------------------------------------------------------------------------

export function createView(ws: Workspace, collectionId: string, body: z.infer<typeof NewViewBody>): Promise<ViewDef> {
  return withSchemaLock(ws, async (write) => {
    const def = getCollection(ws, collectionId);
    const id = body._id ?? newId();
    if (def.views.some((v) => v._id === id)) throw ApiError.conflict(`View '${id}' already exists`, { field: '_id' });
    const now = ws.nowIso();
    const view = checkView(def, { ...newView(id, body, now), updatedAt: now });
    await commit(ws, write, def, { views: [...def.views, view] });
    return view;
  });
}

/** Changes a view: the parts sent (`merge`), or all of it (`replace`: `filter`, `sort` and
 *  `fields` not sent removed, `name` back to the id, as a creation would make it). */
export function updateView(ws: Workspace, collectionId: string, viewId: string, body: z.infer<typeof ViewPatchBody>, mode: ChangeMode = 'merge'): Promise<ViewDef> {
  return withSchemaLock(ws, async (write) => {
    const def = getCollection(ws, collectionId);
    const old = find(def.views, viewId, 'View');
    assertReadOnlyKept(body, ['_id'], old);
    const view = checkView(def, mode === 'replace' ? { ...newView(viewId, body, old.createdAt), updatedAt: ws.nowIso() } : {
      ...old, ...(body.name !== undefined ? { name: body.name } : {}), ...(body.filter !== undefined ? { filter: body.filter } : {}),
      ...viewParts(body), updatedAt: ws.nowIso(),
    });
    await commit(ws, write, def, { views: def.views.map((v) => (v._id === viewId ? view : v)) });
    return view;
  });
}

export function deleteView(ws: Workspace, collectionId: string, viewId: string): Promise<void> {
  return deletePart(ws, collectionId, 'views', viewId, 'View');
}

/** A view as a creation (or a replacement) makes it from `body`: the name defaults to the id,
 *  the filter to none. */
function newView(id: string, body: z.infer<typeof NewViewBody>, createdAt: string): Omit<ViewDef, 'updatedAt'> {
  return { _id: id, name: body.name ?? id, filter: body.filter ?? {}, ...viewParts(body), createdAt };
}

function viewParts(body: z.infer<typeof NewViewBody>): Partial<ViewDef> {
  const out: Partial<ViewDef> = {};
  if (body.sort !== undefined) out.sort = body.sort;
  if (body.fields !== undefined) out.fields = toList(body.fields);
  return out;
}

/** A view is checked when saved, so that applying it never fails on its own content. */
function checkView(def: CollectionDef, view: ViewDef): ViewDef {
  asValidation('filter', () => validateObjectFilter(view.filter, typeOfFor(def)));
  if (view.sort) asValidation('sort', () => parseSort(view.sort!));
  if (view.fields) for (const p of view.fields) if (!isPath(p)) throw ApiError.invalidField('fields', 'format', `'${p}' is not a field path`);
  if (view.sort === '') delete view.sort;
  return view;
}

// ---- indexes ---------------------------------------------------------------------------

export function createIndex(ws: Workspace, collectionId: string, body: z.infer<typeof NewIndexBody>): Promise<IndexDef> {
  return withSchemaLock(ws, async (write) => {
    const def = getCollection(ws, collectionId);
    const fields = toList(body.fields);
    for (const p of fields) if (!isPath(p)) throw ApiError.invalidField('fields', 'format', `'${p}' is not a field path`);
    if (new Set(fields).size !== fields.length) throw ApiError.invalidField('fields', 'invalid', 'An index lists each field once');
    if (fields.length === 1 && UNINDEXABLE.has(fields[0])) throw ApiError.invalidField('fields', 'invalid', `'${fields[0]}' is always indexed`);
    const id = body._id ?? newId();
    if (def.indexes.some((i) => i._id === id)) throw ApiError.conflict(`Index '${id}' already exists`, { field: '_id' });
    const key = [...fields].sort().join(',');
    const same = def.indexes.find((i) => [...i.fields].sort().join(',') === key);
    if (same) throw ApiError.conflict(`Index '${same._id}' already covers these fields`, { field: 'fields' });
    const index: IndexDef = { _id: id, fields, unique: body.unique ?? false, createdAt: ws.nowIso() };
    await commit(ws, write, def, { indexes: [...def.indexes, index] });
    return index;
  });
}

export function deleteIndex(ws: Workspace, collectionId: string, indexId: string): Promise<void> {
  return deletePart(ws, collectionId, 'indexes', indexId, 'Index');
}

// ---- shared ----------------------------------------------------------------------------

export function toList(v: string | string[]): string[] {
  return (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

/** A field path as lists accept it (the list-query parser's own check, via parseSort). */
export function isPath(p: string): boolean {
  try {
    const keys = parseSort(p);
    return keys.length === 1 && keys[0].path === p;
  } catch {
    return false;
  }
}

/** Runs a list-query check, reporting its 400 as a 422 on the named body field. */
function asValidation(field: string, check: () => unknown): void {
  try {
    check();
  } catch (err) {
    if (err instanceof ApiError && err.code === 'BAD_REQUEST') throw ApiError.invalidField(field, 'invalid', err.message);
    throw err;
  }
}
