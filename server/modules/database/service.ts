// Record rules without HTTP: access, validation, writes and their bus events. The routes and
// scenario steps both call these functions.
import type { Request } from 'express';
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import type { Doc } from '../../storage/query.js';
import type { Store } from '../../storage/store.js';
import { getPath } from '../../storage/query.js';
import { ApiError } from '../../core/errors.js';
import { UniqueViolationError } from '../../storage/errors.js';
import { actorOf, type AuthInfo } from '../caller.js';
import { ID_PATTERN, ID_RULE, isReservedRecordId, newId, reservedRecordIdMessage } from '../../core/ids.js';
import { conditionsFromObject, listMeta, parseListQuery, parseSort, type TypeOf } from '../../core/list-query.js';
import type { EventType } from '../../shared/events.js';
import type { FieldError } from '../../shared/error-codes.js';
import type { CollectionDef, FieldType, ListResponse } from '../../shared/models.js';
import { findUser } from '../users/index.js';
import { assertRecordAccess, canReadRecord, checkAccess, ruleFor, type RecordOp } from './access.js';
import { findCollection, getCollection } from './collections.js';
import { desiredIndexes, recordsStore, recordsStoreNow } from './indexes.js';
import { SYSTEM_KEYS, validateData } from './validation.js';
import { checkKeys } from '../../core/keys.js';
import { readOnlyErrors } from '../../core/read-only.js';
import { newEventId, type BusEvent } from '../../core/bus.js';

export { getCollection };

export interface RecordOpts {
  /** The caller; null for anonymous. Scenario steps pass an admin-like caller or null. */
  auth: AuthInfo | null;
  /** Scenario depth of the change, carried on the published event (loop guard). */
  depth?: number;
  /** A check of the record as it stands, run inside the record's exclusive section after the
   *  404 and access checks and before anything is written (an `If-Match` precondition): what
   *  it throws is the answer, and nothing changes. */
  precondition?: (current: Doc) => void;
}

/** How a request was decided, for the request log: `read:public`, `update:only-user`, `write:admin`. */
export function accessLabel(def: CollectionDef, op: RecordOp, auth: AuthInfo | null): string {
  const rule = auth?.isAdmin ? 'admin' : ruleFor(def, op);
  // One string per label, not one per request (every record request is labelled).
  const byRule = LABELS[op] ??= {};
  return byRule[rule] ??= `${op}:${rule}`;
}
const LABELS: Partial<Record<RecordOp, Record<string, string>>> = {};

/** A record by id, as its caller may see it. Answered at once, without a promise, when the
 *  collection's store is open, its indexes in line and its driver holds it in memory (the
 *  embedded one: the usual case), so the hottest request waits for nothing; a promise otherwise.
 *  The same checks and errors either way: every record read (v1, v2, GraphQL, scenario steps,
 *  the fast paths) comes here. Throws its refusals (getRecord rejects them). */
export function readRecord(ws: Workspace, collectionId: string, id: string, opts: RecordOpts, ahead?: RecordReadAhead): Doc | Promise<Doc> {
  const def = getCollection(ws, collectionId);
  checkAccess(def, 'read', opts.auth);
  // The read started early (readRecordAhead), if it read this record of this very collection.
  if (ahead && ahead.def === def && ahead.id === id) return ahead.read.then((record) => readableRecord(def, record, id, opts));
  const store = recordsStoreNow(ws, def);
  if (store?.getNow) return readableRecord(def, store.getNow(id), id, opts);
  return recordsStore(ws, def).then((s) => s.get(id)).then((record) => readableRecord(def, record, id, opts));
}

/** A record's read begun before its caller is known: see readRecordAhead. */
export interface RecordReadAhead { def: CollectionDef; id: string; read: Promise<Doc | undefined> }

/** Begins the read of record `id` while the request's token is still being checked, on a store
 *  whose reads go to a database (PostgreSQL): the read then goes out in the same round trip as
 *  the token's session and user (the reads of one turn share a statement) instead of one round
 *  trip after them. Nothing is decided here: readRecord makes the same checks, in the same
 *  order, before it uses what was read, and drops it if the collection changed meanwhile; the
 *  read is still made while the request is under way, so it sees every write finished before the
 *  request came. Undefined where there is nothing to gain (a store answering at once) or no such
 *  collection (readRecord says so). */
export function readRecordAhead(ws: Workspace, collectionId: string, id: string): RecordReadAhead | undefined {
  const def = findCollection(ws, collectionId);
  if (!def) return undefined;
  const store = recordsStoreNow(ws, def);
  if (store?.getNow) return undefined;
  const read = store ? store.get(id) : recordsStore(ws, def).then((s) => s.get(id));
  read.catch(() => undefined); // a refused request never looks at it
  return { def, id, read };
}

/** readRecord as a promise, for callers that wait anyway. */
export async function getRecord(_ctx: AppContext, ws: Workspace, collectionId: string, id: string, opts: RecordOpts): Promise<Doc> {
  return readRecord(ws, collectionId, id, opts);
}

function readableRecord(def: CollectionDef, record: Doc | undefined, id: string, opts: RecordOpts): Doc {
  if (!record) throw ApiError.notFound('Record', id);
  assertRecordAccess(def, 'read', opts.auth, record);
  return record;
}

/** A page of records. `query` is a raw query string object (`limit`, `offset`, `sort`,
 *  `fields`, `filter[...]`, `view`). A view's filter is ANDed with the query's filters; the
 *  query's `sort` and `fields`, when given, replace the view's. */
export async function listRecords(_ctx: AppContext, ws: Workspace, collectionId: string, query: Record<string, unknown>, opts: RecordOpts): Promise<ListResponse<Doc>> {
  const def = getCollection(ws, collectionId);
  const reach = checkAccess(def, 'read', opts.auth);
  const typeOf = typeOfFor(def);
  const q = parseListQuery(query, { typeOf });
  // An empty `view=` is ignored, like an empty `sort=` or `fields=`.
  if (query.view !== undefined && query.view !== '') {
    if (typeof query.view !== 'string') throw ApiError.badRequest("'view' must be given once, as a string", { field: 'view' });
    const view = def.views.find((v) => v._id === query.view);
    if (!view) throw ApiError.notFound('View', query.view);
    q.conditions.push(...conditionsFromObject(view.filter, typeOf));
    if ((query.sort === undefined || query.sort === '') && view.sort) q.sort = parseSort(view.sort);
    if ((query.fields === undefined || query.fields === '') && view.fields?.length) q.fields = view.fields;
  }
  // only-user lists: the caller's own records, counted by the store (`_owner` is indexed).
  if (reach === 'own') q.conditions.push({ path: '_owner', op: '$eq', values: [opts.auth!.userId] });
  const { data, total } = await (await recordsStore(ws, def)).find(q);
  return { data, meta: listMeta(total, q) };
}

export async function createRecord(ctx: AppContext, ws: Workspace, collectionId: string, input: Record<string, unknown>, opts: RecordOpts): Promise<Doc> {
  const def = getCollection(ws, collectionId);
  checkAccess(def, 'write', opts.auth);
  assertObject(input);
  const { _id, _owner, createdAt, updatedAt, ...rest } = input;
  const errors = checkKeys(rest);
  if (_id !== undefined) {
    if (typeof _id !== 'string') errors.push({ field: '_id', reason: 'type', message: "'_id' must be a string" });
    else if (!ID_PATTERN.test(_id)) errors.push({ field: '_id', reason: 'format', message: `'_id' ${ID_RULE}` });
    // In any case: Express routes ignore case, so `/database/c/Fields` is the fields route.
    else if (isReservedRecordId(_id)) errors.push({ field: '_id', reason: 'invalid', message: reservedRecordIdMessage(_id) });
  }
  // The client may name a record's `_id`; an admin may create it on behalf of a user (`_owner`);
  // the rest is the server's (core/read-only.ts).
  const onBehalf = opts.auth?.isAdmin && typeof _owner === 'string';
  errors.push(...readOnlyErrors(input, onBehalf ? ['createdAt', 'updatedAt'] : ['_owner', 'createdAt', 'updatedAt']));
  const { data, errors: fieldErrors } = validateData(def.fields, rest, 'create');
  errors.push(...fieldErrors);
  if (errors.length) throw ApiError.validation(errors);
  await checkReferences(ws, def, data);

  const store = await recordsStore(ws, def);
  const id = (_id as string | undefined) ?? newId();
  const taken = () => ApiError.conflict(`A record with _id '${id}' already exists`, { field: '_id' });
  const create = async (insert: (doc: Doc, event: BusEvent) => Promise<Doc | undefined>) => {
    const owner = (_owner as string | undefined) ?? opts.auth?.userId;
    const now = ws.nowIso();
    const doc: Doc = { _id: id, ...data, ...(owner ? { _owner: owner } : {}), createdAt: now, updatedAt: now };
    const event = recordEvent(ws, def, 'record.created', doc, opts);
    const record = await write(store, def, doc, () => insert(doc, event));
    if (!record) throw taken();
    publish(ctx, event, record);
    return record;
  };
  // One step where the driver checks the id as it inserts; else alone on the id, read then insert.
  if (store.insertNew) return create((doc, event) => store.insertNew!(doc, { event }));
  return store.exclusive(id, async () => {
    if (await store.get(id)) throw taken();
    return create((doc, event) => store.insert(doc, { event }));
  });
}

/** Partial update (PUT and PATCH): absent fields stay; system keys are read-only. */
export async function updateRecord(ctx: AppContext, ws: Workspace, collectionId: string, id: string, patch: Record<string, unknown>, opts: RecordOpts): Promise<Doc> {
  const def = getCollection(ws, collectionId);
  checkAccess(def, 'update', opts.auth);
  assertObject(patch);
  const store = await recordsStore(ws, def);
  const patched = store.patch ? await patchRecord(ctx, ws, def, store, id, patch, opts) : undefined;
  if (patched) return patched;
  // Read, check and write as one read-modify-write of the record (store.update): concurrent
  // partial updates apply one after another, each answer showing the record right after its
  // own change.
  let event: BusEvent | undefined;
  let next: Doc | undefined;
  const record = await write(store, def, () => next!, () => store.update(id, async (existing) => {
    next = await applyUpdate(ws, def, id, existing, patch, opts);
    return next;
  }, { event: (doc) => (event = recordEvent(ws, def, 'record.updated', doc, opts, event?.id)) }));
  if (!record) throw ApiError.notFound('Record', id);
  // A driver that stores no event with the write never asked for it.
  publish(ctx, event ?? recordEvent(ws, def, 'record.updated', record, opts), record);
  return record;
}

/** A partial update in one step where the driver has it (store.patch), for a patch whose checks
 *  do not need the record as it stands: no system key in it (repeating one is checked against
 *  the record), no precondition, valid fields and references, and access that depends at most
 *  on the record's owner (the step writes only a record of that owner). Resolves to undefined
 *  when it cannot tell the answer (the record missing, another owner's, a check failing, a
 *  unique index refusing): the read-modify-write then decides it, with the same errors as
 *  always. */
async function patchRecord(ctx: AppContext, ws: Workspace, def: CollectionDef, store: Store, id: string, patch: Record<string, unknown>, opts: RecordOpts): Promise<Doc | undefined> {
  if (opts.precondition) return undefined;
  for (const key of SYSTEM_KEYS) if (Object.prototype.hasOwnProperty.call(patch, key)) return undefined;
  const auth = opts.auth;
  let owner: string | undefined;
  if (!auth?.isAdmin) {
    const read = ruleFor(def, 'read');
    if (read !== 'public' && !auth) return undefined; // 401 or 404: the record decides which
    if (read === 'only-user' || checkAccess(def, 'update', auth) === 'own') owner = auth!.userId;
  }
  if (checkKeys(patch).length || validateData(def.fields, patch, 'update').errors.length) return undefined;
  try {
    await checkReferences(ws, def, patch);
  } catch {
    return undefined;
  }
  const event = recordEvent(ws, def, 'record.updated', { _id: id }, opts); // its data: the record as written
  let record: Doc | undefined;
  try {
    record = await store.patch!(id, { ...patch, updatedAt: ws.nowIso() }, { owner, event });
  } catch (err) {
    if (err instanceof UniqueViolationError) return undefined; // named by the read-modify-write
    throw err;
  }
  if (!record) return undefined;
  publish(ctx, event, record);
  return record;
}

/** `body` without its system keys, each other key an own property of the copy (as sent). */
function withoutSystemKeys(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([key]) => !(SYSTEM_KEYS as readonly string[]).includes(key)));
}

/** The checks of a partial update against the record as it stands, and its next version. */
async function applyUpdate(ws: Workspace, def: CollectionDef, id: string, existing: Doc, patch: Record<string, unknown>, opts: RecordOpts): Promise<Doc> {
  assertMayRead(def, opts.auth, existing);
  assertRecordAccess(def, 'update', opts.auth, existing);
  opts.precondition?.(existing);
  // System keys repeating the record's values are ignored; changing one is refused.
  const errors = readOnlyErrors(patch, SYSTEM_KEYS, existing);
  // Own properties each (a `__proto__` key sent stays a key, refused below, instead of becoming
  // the object's prototype and vanishing).
  const rest = withoutSystemKeys(patch);
  errors.push(...checkKeys(rest));
  const { errors: fieldErrors } = validateData(def.fields, rest, 'update');
  errors.push(...fieldErrors);
  if (errors.length) throw ApiError.validation(errors);
  await checkReferences(ws, def, rest);

  return { ...existing, ...rest, _id: id, updatedAt: ws.nowIso() };
}

/** Whole replacement: the record becomes `body`; fields not sent are removed, required fields
 *  and defaults apply as on creation, and the system keys (`_id`, `_owner`, `createdAt`) are
 *  kept (sending them with their current values is allowed, changing them refused). The same
 *  access rules, validation, unique checks and `record.updated` event as a partial update. */
export async function replaceRecord(ctx: AppContext, ws: Workspace, collectionId: string, id: string, body: Record<string, unknown>, opts: RecordOpts): Promise<Doc> {
  const def = getCollection(ws, collectionId);
  checkAccess(def, 'update', opts.auth);
  assertObject(body);
  const store = await recordsStore(ws, def);
  return store.exclusive(id, async () => {
    const existing = await store.get(id);
    if (!existing) throw ApiError.notFound('Record', id);
    assertMayRead(def, opts.auth, existing);
    assertRecordAccess(def, 'update', opts.auth, existing);
    opts.precondition?.(existing);
    const errors = readOnlyErrors(body, SYSTEM_KEYS, existing);
    const rest = withoutSystemKeys(body);
    errors.push(...checkKeys(rest));
    const { data, errors: fieldErrors } = validateData(def.fields, rest, 'create');
    errors.push(...fieldErrors);
    if (errors.length) throw ApiError.validation(errors);
    await checkReferences(ws, def, data);
    const next: Doc = {
      _id: id, ...data,
      ...(existing._owner !== undefined ? { _owner: existing._owner } : {}),
      createdAt: existing.createdAt, updatedAt: ws.nowIso(),
    };
    const event = recordEvent(ws, def, 'record.updated', next, opts);
    const record = await write(store, def, next, () => store.replace(id, next, { event }));
    if (!record) throw ApiError.notFound('Record', id);
    publish(ctx, event, record);
    return record;
  });
}

export async function deleteRecord(ctx: AppContext, ws: Workspace, collectionId: string, id: string, opts: RecordOpts): Promise<void> {
  const def = getCollection(ws, collectionId);
  checkAccess(def, 'remove', opts.auth);
  const store = await recordsStore(ws, def);
  await store.exclusive(id, async () => {
    const existing = await store.get(id);
    if (!existing) throw ApiError.notFound('Record', id);
    assertMayRead(def, opts.auth, existing);
    assertRecordAccess(def, 'remove', opts.auth, existing);
    opts.precondition?.(existing);
    const event = recordEvent(ws, def, 'record.deleted', existing, opts);
    if (!(await store.remove(id, { event }))) throw ApiError.notFound('Record', id);
    publish(ctx, event, existing);
  });
}

// ---- helpers ---------------------------------------------------------------------------

const BUILTIN_TYPES: Record<string, FieldType> = { _id: 'string', _owner: 'string', createdAt: 'date', updatedAt: 'date' };
// Not server state: a memo per immutable collection definition.
const typeOfCache = new WeakMap<CollectionDef, TypeOf>();

/** Filter coercion by schema type; dot paths into a field, enum fields and unknown fields
 *  are coerced as schemaless (typed and string readings both match). */
export function typeOfFor(def: CollectionDef): TypeOf {
  let typeOf = typeOfCache.get(def);
  if (!typeOf) {
    const types = new Map<string, FieldType>(Object.entries(BUILTIN_TYPES));
    for (const f of def.fields) if (f.type !== 'enum') types.set(f._id, f.type);
    typeOf = (path) => types.get(path);
    typeOfCache.set(def, typeOf);
  }
  return typeOf;
}

/** A change answers with the record (PUT/PATCH) or confirms that it exists (DELETE): a caller
 *  who may not read the record under the read rule gets what a GET would give (403), and
 *  nothing changes. The write rule alone (e.g. `update: private` beside `read: only-user`)
 *  never hands out a record the caller may not read. */
function assertMayRead(def: CollectionDef, auth: AuthInfo | null, record: Doc): void {
  if (!canReadRecord(def, auth, record)) {
    if (!auth) checkAccess(def, 'read', auth); // 401, as a GET without a token
    assertRecordAccess(def, 'read', auth, record);
  }
}

function assertObject(input: unknown): asserts input is Record<string, unknown> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw ApiError.badRequest('A record must be a JSON object');
}

/** `reference` fields must name an existing record of their collection, `user` fields an existing user. */
async function checkReferences(ws: Workspace, def: CollectionDef, data: Record<string, unknown>): Promise<void> {
  const errors: FieldError[] = [];
  for (const f of def.fields) {
    const v = data[f._id];
    if (typeof v !== 'string') continue;
    if (f.type === 'reference') {
      const target = findCollection(ws, String(f.options?.collection ?? ''));
      if (!target || !(await (await recordsStore(ws, target)).get(v))) {
        errors.push({ field: f._id, reason: 'invalid', message: `'${f._id}': no record '${v}' in collection '${String(f.options?.collection)}'` });
      }
    } else if (f.type === 'user' && !(await findUser(ws, v))) {
      errors.push({ field: f._id, reason: 'invalid', message: `'${f._id}': no user '${v}'` });
    }
  }
  if (errors.length) throw ApiError.validation(errors);
}

/** Runs a store write; a unique violation becomes a 409 naming the field when it can. `doc`:
 *  what was written (or a function giving it, once the write has computed it). */
async function write<T>(store: Store, def: CollectionDef, written: Doc | (() => Doc), op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (!(err instanceof UniqueViolationError)) throw err;
    const doc = typeof written === 'function' ? written() : written;
    if (!doc) throw err;
    for (const [key, unique] of desiredIndexes(def)) {
      if (!unique) continue;
      const fields = key.split(',');
      if (getPath(doc, fields[0]) === undefined) continue;
      const clash = (await store.findBy(fields[0], getPath(doc, fields[0]))).some((d) => d._id !== doc._id && fields.every((f) => sameValue(getPath(d, f), getPath(doc, f))));
      if (clash) throw ApiError.conflict(`Another record already has this ${fields.join(' + ')}`, { field: fields.join(',') });
    }
    throw err;
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** The event of a record write, made before the write so that a driver with an outbox stores
 *  it in the write's transaction (its id and time are those published). */
function recordEvent(ws: Workspace, def: CollectionDef, type: EventType, record: Doc, opts: RecordOpts, id = newEventId()): BusEvent {
  const actor = actorOf({ auth: opts.auth } as Request);
  return {
    id, type, app: ws.id, timestamp: ws.nowIso(), collection: def._id, data: record,
    ...(actor ? { actor } : {}),
    ...(opts.depth !== undefined ? { depth: opts.depth } : {}),
  };
}

/** Publishes a write's event, with the record as stored. */
function publish(ctx: AppContext, event: BusEvent, record: Doc): void {
  ctx.bus.publish({ ...event, data: record });
}
