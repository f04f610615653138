// Validation of a whole dump before an import touches anything. The structure, ids, duplicates
// and unique values are checked here; collections, fields, views, indexes, record values and
// webhooks are checked with the same schemas and validators as the API (database and webhooks
// modules), so an import never holds what the API itself would refuse. The first problem is a
// 422 whose `details.field` is its JSON path (`records.people[3]._id`).
import type { z } from 'zod';
import { ApiError } from '../../core/errors.js';
import { ID_PATTERN, ID_RULE, idFoldKey, isReservedRecordId, nowIso, reservedRecordIdMessage } from '../../core/ids.js';
import { isReservedKey } from '../../core/keys.js';
import { parseBody } from '../../core/validate.js';
import { parseSort, validateObjectFilter } from '../../core/list-query.js';
import type { CollectionDef, CollectionSetting, FieldDef } from '../../shared/models.js';
import type { FieldError, ValidationReason } from '../../shared/error-codes.js';
import { DumpCollectionHead, NewFieldBody, NewIndexBody, NewViewBody } from '../database/index.js';
import { checkValue, fieldError, validateData } from '../database/index.js';
import { checkKeys as checkStoreKeys } from '../../core/keys.js';
import { DEFAULT_SETTING } from '../database/index.js';
import { RESERVED_FIELDS, UNINDEXABLE, isPath, toList } from '../database/index.js';
import { typeOfFor } from '../database/index.js';
import { DumpWebhook } from '../webhooks/index.js';
import { DumpUser } from '../users/index.js';
import { normalizeEmail } from '../users/index.js';
import { DumpCredential } from '../credentials/index.js';
import { StoredScenario, scenarioProblems, type ScenarioDoc } from '../scenarios/index.js';
import { stepAvailable } from '../scenarios/index.js';
import { DUMP_FORMAT, DUMP_VERSION, SECTION_STORES, type Dump } from './dump-format.js';

type Obj = Record<string, unknown>;

const fail = (field: string, reason: ValidationReason, message: string): never => {
  throw ApiError.invalidField(field, reason, `${field || 'dump'}: ${message}`);
};
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const key = (path: string, k: string) => (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`);
const STORE_NAME = /^[a-z][a-z0-9_-]*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function obj(v: unknown, path: string): Obj {
  if (v === undefined) fail(path, 'required', 'is required');
  if (!isObj(v)) fail(path, 'type', 'must be an object');
  return v as Obj;
}
function arr(v: unknown, path: string): unknown[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) fail(path, 'type', 'must be an array');
  return v as unknown[];
}
function str(v: unknown, path: string, optional = false): string | undefined {
  if (v === undefined && optional) return undefined;
  if (v === undefined) fail(path, 'required', 'is required');
  if (typeof v !== 'string') fail(path, 'type', 'must be a string');
  return v as string;
}

/** A list of documents with unique ids; returns them. `storeKeys: false` for lists that do not go to the document store (collections live in the
 *  settings file, and a view's filter is made of `$gte`-style keys). */
function docs(v: unknown, path: string, idPattern: RegExp | null, each?: (d: Obj, p: string) => void, storeKeys = true): Obj[] {
  const list = arr(v, path);
  const seen = new Set<string>();
  list.forEach((d, i) => {
    const p = `${path}[${i}]`;
    const doc = obj(d, p);
    const id = str(doc._id, `${p}._id`)!;
    if (idPattern ? !idPattern.test(id) : id.length === 0) fail(`${p}._id`, 'format', idPattern ? ID_RULE : 'must not be empty');
    if (seen.has(id)) fail(`${p}._id`, 'invalid', `duplicate _id '${id}'`);
    seen.add(id);
    if (storeKeys) {
      const [refused] = checkStoreKeys(doc, p, key);
      if (refused) fail(refused.field, refused.reason, refused.message ?? 'is not a key the store can hold');
    }
    each?.(doc, p);
  });
  return list as Obj[];
}

const DATE_FIELD = { _id: 'date', name: 'date', type: 'date' } as FieldDef;

/** `createdAt` / `updatedAt`, when given, are ISO 8601 dates as the server writes them. */
function checkStamps(o: Obj, path: string): void {
  for (const k of ['createdAt', 'updatedAt']) {
    if (o[k] === undefined) continue;
    const reason = checkValue(DATE_FIELD, o[k]);
    if (reason) fail(`${path}.${k}`, reason, 'must be an ISO 8601 date (e.g. 2026-01-31T12:00:00.000Z)');
  }
}

/** Checks a collection definition as the database API would have: setting values, field types
 *  and options, defaults, view filters and sorts, index fields. Returns it with its setting
 *  completed the way the API completes a partial one. */
function validateCollection(c: Obj, p: string, collectionIds: Set<string>): Obj {
  const head = parseAt(DumpCollectionHead, { _id: c._id, name: c.name, setting: c.setting }, p);
  checkStamps(c, p);
  const setting: CollectionSetting = { ...DEFAULT_SETTING };
  for (const [k, v] of Object.entries(head.setting ?? {})) if (v !== undefined && v !== null) (setting as unknown as Obj)[k] = v;

  const fields = schemaParts(c.fields, `${p}.fields`, 'field', NewFieldBody, (field, _parsed, fp) => {
    const id = field._id as string;
    if (RESERVED_FIELDS.has(id)) fail(`${fp}._id`, 'invalid', `'${id}' is kept by the server on every record`);
    if (isReservedKey(id)) fail(`${fp}._id`, 'invalid', `'${id}' cannot be a field's key (it names a built-in property of JavaScript objects)`);
    checkFieldSettings(field as unknown as FieldDef, fp, collectionIds);
  });

  const typeOf = typeOfFor({ fields } as unknown as CollectionDef);
  schemaParts(c.views, `${p}.views`, 'view', NewViewBody, (_view, parsed, vp) => {
    asValidation(`${vp}.filter`, () => validateObjectFilter(parsed.filter ?? {}, typeOf));
    if (parsed.sort) asValidation(`${vp}.sort`, () => parseSort(parsed.sort!));
    if (parsed.fields !== undefined) for (const f of toList(parsed.fields)) if (!isPath(f)) fail(`${vp}.fields`, 'format', `'${f}' is not a field path`);
  });

  const indexKeys = new Set<string>();
  schemaParts(c.indexes, `${p}.indexes`, 'index', NewIndexBody, (_index, parsed, ip) => {
    const list = toList(parsed.fields);
    for (const f of list) if (!isPath(f)) fail(`${ip}.fields`, 'format', `'${f}' is not a field path`);
    if (list.length === 0) fail(`${ip}.fields`, 'invalid', 'must list field names');
    if (new Set(list).size !== list.length) fail(`${ip}.fields`, 'invalid', 'an index lists each field once');
    if (list.length === 1 && UNINDEXABLE.has(list[0])) fail(`${ip}.fields`, 'invalid', `'${list[0]}' is always indexed`);
    const k = [...list].sort().join(',');
    if (indexKeys.has(k)) fail(`${ip}.fields`, 'invalid', 'another index already covers these fields');
    indexKeys.add(k);
  });
  return { ...c, setting };
}

/** A part list of a collection's schema (fields, views, indexes): objects with an `_id` unique in
 *  the list, each checked with the database module's body schema and `each`; returns them. */
function schemaParts<S extends z.ZodType>(v: unknown, path: string, what: string, schema: S, each: (part: Obj, parsed: z.infer<S>, p: string) => void): Obj[] {
  const ids = new Set<string>();
  return arr(v, path).map((x, i) => {
    const p = `${path}[${i}]`;
    const part = obj(x, p);
    const id = str(part._id, `${p}._id`)!;
    const parsed = parseAt(schema, part, p);
    if (ids.has(id)) fail(`${p}._id`, 'invalid', `duplicate ${what} '${id}'`);
    ids.add(id);
    checkStamps(part, p);
    each(part, parsed, p);
    return part;
  });
}

/** The type-specific rules of a field definition (database module, schema-service.ts `checkField`). */
function checkFieldSettings(field: FieldDef, fp: string, collectionIds: Set<string>): void {
  const o = field.options ?? {};
  if (field.type === 'enum' && !o.values?.length) fail(`${fp}.options.values`, 'required', "an enum field needs 'options.values'");
  if (field.type === 'reference') {
    if (typeof o.collection !== 'string') fail(`${fp}.options.collection`, 'required', "a reference field needs 'options.collection'");
    if (!collectionIds.has(o.collection as string)) fail(`${fp}.options.collection`, 'invalid', `no collection '${o.collection}' in schema.collections`);
  }
  if (field.unique && (field.type === 'json' || field.type === 'array')) fail(`${fp}.unique`, 'invalid', `a ${field.type} field cannot be unique`);
  if (field.default !== undefined && field.default !== null) {
    const reason = checkValue(field, field.default);
    if (reason) fail(`${fp}.default`, reason, fieldError(field, reason, field.default, `${fp}.default`).message!.replace(/^'[^']*' /, ''));
  }
}

/** Runs a zod schema of the API on a part of the dump; its first issue becomes the dump's 422. */
function parseAt<S extends z.ZodType>(schema: S, value: unknown, path: string): z.infer<S> {
  try {
    return parseBody(schema, value);
  } catch (err) {
    throw atPath(err, path);
  }
}

/** A check of the list-query parser (400) or a validator (422), reported at `path`. */
function asValidation(path: string, check: () => unknown): void {
  try {
    check();
  } catch (err) {
    if (err instanceof ApiError && err.code === 'BAD_REQUEST') fail(path, 'invalid', err.message);
    throw atPath(err, path);
  }
}

/** Re-roots a 422 of the API (its field relative to a body) at a JSON path of the dump. */
function atPath(err: unknown, path: string): unknown {
  if (!(err instanceof ApiError) || err.code !== 'VALIDATION_ERROR') return err;
  const first = ((err.details?.errors as FieldError[] | undefined) ?? [])[0] ?? { field: '', reason: 'invalid' as ValidationReason };
  return fieldAt(path, first);
}

/** A field error whose `field` is relative (`a.b`, `tags[2]`, `options.values.0`) as one at `path`. */
function fieldAt(path: string, e: FieldError): ApiError {
  let at = path;
  for (const part of e.field.split('.').filter((x) => x !== '')) {
    const m = /^(.*?)((?:\[\d+\])*)$/.exec(part)!;
    if (m[1]) at = /^\d+$/.test(m[1]) ? `${at}[${m[1]}]` : key(at, m[1]);
    at += m[2];
  }
  const message = (e.message ?? 'is invalid').replace(/^'[^']*':?\s*/, '');
  return ApiError.invalidField(at, e.reason, `${at || 'dump'}: ${message}`);
}

/** Record values, as the API checks a created record: system keys (`_owner` a user id, dates
 *  as dates), keys the store refuses, and every field's type, format, range and `required`.
 *  A record created before a field's definition last changed is not held to that definition
 *  (a schema change never rewrites or re-checks existing records, so a workspace may hold
 *  such records, and its export must import). Returns the record with the defaults of the
 *  fields it is held to, as a create would have. */
function validateRecord(d: Obj, p: string, def: CollectionDef): Obj {
  const { _id: _omit, _owner, createdAt, updatedAt, ...rest } = d;
  if (_owner !== undefined && (typeof _owner !== 'string' || _owner === '')) fail(`${p}._owner`, 'type', 'must be a user id (a string)');
  checkStamps(d, p);
  const created = typeof createdAt === 'string' ? Date.parse(createdAt) : NaN;
  const inForce = (def.fields ?? []).filter((f) => {
    const changed = Date.parse(String(f.updatedAt ?? f.createdAt ?? ''));
    return Number.isNaN(created) || Number.isNaN(changed) || created >= changed;
  });
  const { data, errors } = validateData(inForce, rest, 'create');
  if (errors.length) throw fieldAt(p, errors[0]);
  return data === rest ? d : { ...d, ...data };
}

/** The unique keys a collection's schema declares (a compound one lists several fields). */
function uniqueKeys(c: CollectionDef): string[][] {
  const out: string[][] = [];
  for (const f of c.fields ?? []) if (f.unique) out.push([f._id]);
  for (const i of c.indexes ?? []) if (i.unique) out.push([...i.fields]);
  return out;
}

const valueAt = (doc: Obj, path: string): unknown => path.split('.').reduce<unknown>((v, k) => (isObj(v) ? v[k] : undefined), doc);

/** Checks a parsed dump and returns it typed; throws the 422 of the first problem. */
export function validateDump(raw: unknown): Dump {
  const root = obj(raw, '');
  if (root.format !== DUMP_FORMAT) fail('format', root.format === undefined ? 'required' : 'enum', `must be "${DUMP_FORMAT}"`);
  if (root.version !== DUMP_VERSION) fail('version', root.version === undefined ? 'required' : 'enum', `must be ${DUMP_VERSION}`);
  if (root.workspace !== undefined) obj(root.workspace, 'workspace');

  const schema = root.schema === undefined ? {} : obj(root.schema, 'schema');
  // Collection ids name files: two that differ only in case would share one on macOS / Windows.
  const folded = new Set<string>();
  const rawCollections = docs(schema.collections, 'schema.collections', ID_PATTERN, (c, p) => {
    const k = idFoldKey(c._id as string);
    if (folded.has(k)) fail(`${p}._id`, 'invalid', `'${c._id}' differs from another collection id only in case`);
    folded.add(k);
  }, false);
  const collectionIds = new Set(rawCollections.map((c) => c._id as string));
  const collections = rawCollections.map((c, i) => validateCollection(c, `schema.collections[${i}]`, collectionIds)) as unknown as CollectionDef[];
  const byId = new Map(collections.map((c) => [c._id, c]));

  const records = root.records === undefined ? {} : obj(root.records, 'records');
  const checkedRecords: Record<string, Obj[]> = {};
  for (const [cid, list] of Object.entries(records)) {
    const path = key('records', cid);
    const def = byId.get(cid);
    if (!def) fail(path, 'invalid', `collection '${cid}' is not in schema.collections`);
    const given = docs(list, path, ID_PATTERN, (d, p) => { if (isReservedRecordId(d._id as string)) fail(`${p}._id`, 'invalid', reservedRecordIdMessage(d._id as string)); });
    const checked = given.map((d, i) => validateRecord(d, `${path}[${i}]`, def!));
    for (const fields of uniqueKeys(def!)) {
      const seen = new Set<string>();
      checked.forEach((d, i) => {
        const values = fields.map((f) => valueAt(d, f));
        if (values.some((v) => v === undefined)) return; // unique indexes are sparse
        const k = JSON.stringify(values);
        if (seen.has(k)) fail(`${path}[${i}].${fields[0]}`, 'invalid', `duplicate value for unique ${fields.join(', ')}`);
        seen.add(k);
      });
    }
    checkedRecords[cid] = checked;
  }

  const emails = new Set<string>();
  const users = docs(root.users, 'users', ID_PATTERN, (u, p) => {
    parseAt(DumpUser, u, p);
    const email = normalizeEmail(u.email as string);
    if (emails.has(email)) fail(`${p}.email`, 'invalid', `duplicate email '${email}'`);
    emails.add(email);
  });

  docs(root.files, 'files', ID_PATTERN, (f, p) => {
    str(f.name, `${p}.name`);
    str(f.type, `${p}.type`, true);
    const content = str(f.content, `${p}.content`)!;
    if (content.length % 4 !== 0 || !BASE64.test(content)) fail(`${p}.content`, 'format', 'must be base64');
    if (f.size !== undefined && f.size !== Buffer.byteLength(content, 'base64')) fail(`${p}.size`, 'invalid', 'does not match the content');
  });
  docs(root.webhooks, 'webhooks', null, (w, p) => { parseAt(DumpWebhook, w, p); checkStamps(w, p); });
  const secretNames = new Set<string>();
  docs(root.secrets, 'secrets', null, (s, p) => {
    const { name } = parseAt(DumpCredential, s, p);
    if (secretNames.has(name)) fail(`${p}.name`, 'invalid', `duplicate secret name '${name}'`);
    secretNames.add(name);
  });
  // Scenarios come out as stored (every part the engine reads present); an active one must be
  // able to run, with the dump's own secrets, exactly as activation would have required.
  const scenarios = docs(root.scenarios, 'scenarios', null).map((s, i) => {
    const p = `scenarios[${i}]`;
    const now = nowIso();
    const scenario = parseAt(StoredScenario, { createdAt: now, updatedAt: now, ...s }, p) as ScenarioDoc;
    checkStamps(s, p);
    if (scenario.active) {
      const problems = scenarioProblems(scenario, secretNames, stepAvailable);
      if (problems.length) throw fieldAt(p, problems[0]);
    }
    return { ...s, ...scenario };
  });

  const stores = root.stores === undefined ? {} : obj(root.stores, 'stores');
  for (const [name, list] of Object.entries(stores)) {
    const path = key('stores', name);
    if (!STORE_NAME.test(name) || SECTION_STORES.has(name)) fail(path, 'invalid', `'${name}' is not a store a dump may carry here`);
    docs(list, path, null);
  }
  return { ...root, schema: { ...schema, collections }, records: checkedRecords, users, scenarios } as unknown as Dump;
}
