// Validation of a whole dump before an import touches anything: structure, ids, duplicates,
// unique fields, and field names the store refuses. The first problem is a 422 whose
// `details.field` is its JSON path (`records.people[3]._id`).
import { ApiError } from '../../core/errors.js';
import { ID_PATTERN, RESERVED_RECORD_IDS } from '../../core/ids.js';
import { FIELD_TYPES, type CollectionDef } from '../../shared/models.js';
import type { ValidationReason } from '../../shared/error-codes.js';
import { DUMP_FORMAT, DUMP_VERSION, SECTION_STORES, type Dump } from './dump-format.js';

type Obj = Record<string, unknown>;

const fail = (field: string, reason: ValidationReason, message: string): never => {
  throw ApiError.invalidField(field, reason, `${field || 'dump'}: ${message}`);
};
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const key = (path: string, k: string) => (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`);
const BCRYPT = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;
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

/** Field names the document store refuses (`$...`, dots), anywhere in a document. */
function checkKeys(v: unknown, path: string): void {
  if (Array.isArray(v)) { v.forEach((x, i) => checkKeys(x, `${path}[${i}]`)); return; }
  if (!isObj(v)) return;
  for (const [k, x] of Object.entries(v)) {
    if (k.startsWith('$') || k.includes('.')) fail(key(path, k), 'format', 'field names may not start with $ or contain a dot');
    checkKeys(x, key(path, k));
  }
}

/** A list of documents with unique ids; returns them. */
/** `storeKeys: false` for lists that do not go to the document store (collections live in the
 *  settings file, and a view's filter is made of `$gte`-style keys). */
function docs(v: unknown, path: string, idPattern: RegExp | null, each?: (d: Obj, p: string) => void, storeKeys = true): Obj[] {
  const list = arr(v, path);
  const seen = new Set<string>();
  list.forEach((d, i) => {
    const p = `${path}[${i}]`;
    const doc = obj(d, p);
    const id = str(doc._id, `${p}._id`)!;
    if (idPattern ? !idPattern.test(id) : id.length === 0) fail(`${p}._id`, 'format', idPattern ? 'must match ^[A-Za-z][A-Za-z0-9_-]{0,63}$' : 'must not be empty');
    if (seen.has(id)) fail(`${p}._id`, 'invalid', `duplicate _id '${id}'`);
    seen.add(id);
    if (storeKeys) checkKeys(doc, p);
    each?.(doc, p);
  });
  return list as Obj[];
}

function validateCollection(c: Obj, p: string): void {
  if (c.name !== undefined) str(c.name, `${p}.name`);
  if (c.setting !== undefined) obj(c.setting, `${p}.setting`);
  arr(c.fields, `${p}.fields`).forEach((f, i) => {
    const fp = `${p}.fields[${i}]`;
    const field = obj(f, fp);
    str(field._id, `${fp}._id`);
    if (!(FIELD_TYPES as readonly string[]).includes(str(field.type, `${fp}.type`)!)) fail(`${fp}.type`, 'enum', `must be one of ${FIELD_TYPES.join(', ')}`);
  });
  arr(c.views, `${p}.views`).forEach((v, i) => { const view = obj(v, `${p}.views[${i}]`); str(view._id, `${p}.views[${i}]._id`); });
  arr(c.indexes, `${p}.indexes`).forEach((x, i) => {
    const ip = `${p}.indexes[${i}]`;
    const index = obj(x, ip);
    const fields = arr(index.fields, `${ip}.fields`);
    if (fields.length === 0 || fields.some((f) => typeof f !== 'string')) fail(`${ip}.fields`, 'invalid', 'must list field names');
  });
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
  const collections = docs(schema.collections, 'schema.collections', ID_PATTERN, validateCollection, false) as unknown as CollectionDef[];
  const byId = new Map(collections.map((c) => [c._id, c]));

  const records = root.records === undefined ? {} : obj(root.records, 'records');
  for (const [cid, list] of Object.entries(records)) {
    const path = key('records', cid);
    const def = byId.get(cid);
    if (!def) fail(path, 'invalid', `collection '${cid}' is not in schema.collections`);
    docs(list, path, ID_PATTERN, (d, p) => { if (RESERVED_RECORD_IDS.has(d._id as string)) fail(`${p}._id`, 'invalid', `'${d._id}' is reserved`); });
    for (const fields of uniqueKeys(def!)) {
      const seen = new Set<string>();
      (list as Obj[]).forEach((d, i) => {
        const values = fields.map((f) => valueAt(d, f));
        if (values.some((v) => v === undefined)) return; // unique indexes are sparse
        const k = JSON.stringify(values);
        if (seen.has(k)) fail(`${path}[${i}].${fields[0]}`, 'invalid', `duplicate value for unique ${fields.join(', ')}`);
        seen.add(k);
      });
    }
  }

  const emails = new Set<string>();
  docs(root.users, 'users', ID_PATTERN, (u, p) => {
    const email = str(u.email, `${p}.email`)!.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) fail(`${p}.email`, 'format', 'must be an email address');
    if (emails.has(email)) fail(`${p}.email`, 'invalid', `duplicate email '${email}'`);
    emails.add(email);
    if (u.passwordHash !== undefined) {
      if (typeof u.passwordHash !== 'string' || !BCRYPT.test(u.passwordHash)) fail(`${p}.passwordHash`, 'format', 'must be a bcrypt hash');
    } else if (str(u.password, `${p}.password`)!.length < 8) fail(`${p}.password`, 'too_short', 'must have at least 8 characters');
    str(u.name, `${p}.name`, true);
    str(u.role, `${p}.role`, true);
  });

  docs(root.files, 'files', ID_PATTERN, (f, p) => {
    str(f.name, `${p}.name`);
    str(f.type, `${p}.type`, true);
    const content = str(f.content, `${p}.content`)!;
    if (content.length % 4 !== 0 || !BASE64.test(content)) fail(`${p}.content`, 'format', 'must be base64');
    if (f.size !== undefined && f.size !== Buffer.byteLength(content, 'base64')) fail(`${p}.size`, 'invalid', 'does not match the content');
  });
  docs(root.webhooks, 'webhooks', null, (w, p) => {
    str(w.url, `${p}.url`);
    if (!Array.isArray(w.events) || w.events.some((e) => typeof e !== 'string')) fail(`${p}.events`, 'type', 'must be an array of event names');
  });
  docs(root.scenarios, 'scenarios', null, (s, p) => { str(s.name, `${p}.name`, true); });
  const secretNames = new Set<string>();
  docs(root.secrets, 'secrets', null, (s, p) => {
    const name = str(s.name, `${p}.name`)!;
    if (secretNames.has(name)) fail(`${p}.name`, 'invalid', `duplicate secret name '${name}'`);
    secretNames.add(name);
    if ('value' in s || 'sealedValue' in s) fail(`${p}.value`, 'read_only', 'secret values are never imported; set them with PUT /credentials/{id}');
  });

  const stores = root.stores === undefined ? {} : obj(root.stores, 'stores');
  for (const [name, list] of Object.entries(stores)) {
    const path = key('stores', name);
    if (!STORE_NAME.test(name) || SECTION_STORES.has(name)) fail(path, 'invalid', `'${name}' is not a store a dump may carry here`);
    docs(list, path, null);
  }
  return root as unknown as Dump;
}
