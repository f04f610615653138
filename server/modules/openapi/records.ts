// The per-collection part of the document: for each collection, a record schema built from its
// fields (plus create and update bodies) and the paths `/database/{id}` and `/database/{id}/{id}`.
import type { AccessLevel, CollectionDef, FieldDef } from '../../shared/models.js';
import { filterParameters, withoutDefaults, json, listItemName, listItemSchema, noContent, pageOf, pathItem, putAndPatch, ref, type Access, type OpSpec, type Schema } from './ops.js';
import { ID_PATTERN } from '../../core/ids.js';
import { ISO_DATE } from '../../shared/query.js';

/** JSON Schema of one field's values; a field that is not required may be null. */
export function fieldSchema(f: FieldDef): Schema {
  const o = f.options ?? {};
  const num = (key: 'min' | 'max', to: string) => (typeof o[key] === 'number' ? { [to]: o[key] } : {});
  const len = (min: string, max: string) => ({
    ...(typeof o.minLength === 'number' ? { [min]: o.minLength } : {}),
    ...(typeof o.maxLength === 'number' ? { [max]: o.maxLength } : {}),
  });
  let s: Schema;
  switch (f.type) {
    case 'string': s = { type: 'string', ...len('minLength', 'maxLength') }; break;
    case 'email': s = { type: 'string', format: 'email', ...len('minLength', 'maxLength') }; break;
    case 'url': s = { type: 'string', format: 'uri', ...len('minLength', 'maxLength') }; break;
    // Accepted and returned as given: a date (`2026-12-24`) or a date and time, with or without
    // seconds, fraction and offset (`2026-12-24T18:30`, `2026-12-24 18:30:00.5+01:00`).
    case 'date': s = { type: 'string', pattern: ISO_DATE.source, description: 'ISO 8601 date (`2026-12-24`) or date and time (`2026-12-24T18:30:00Z`; seconds, fraction and offset optional), stored and returned as given' }; break;
    case 'number': s = { type: 'number', ...num('min', 'minimum'), ...num('max', 'maximum') }; break;
    case 'integer': s = { type: 'integer', ...num('min', 'minimum'), ...num('max', 'maximum') }; break;
    case 'boolean': s = { type: 'boolean' }; break;
    case 'enum': s = { enum: [...(Array.isArray(o.values) ? o.values : []), ...(f.required ? [] : [null])] }; break;
    case 'json': s = { description: 'Any JSON value' }; break;
    case 'array': s = { type: 'array', items: {}, ...len('minItems', 'maxItems') }; break;
    case 'reference': s = { type: 'string', minLength: 1, maxLength: 200, description: `\`_id\` of a record of \`${String(o.collection ?? '')}\`` }; break;
    case 'file': s = { type: 'string', minLength: 1, maxLength: 200, description: 'File `_id` (`/storage/{id}`)' }; break;
    case 'user': s = { type: 'string', minLength: 1, maxLength: 200, description: 'User `_id`' }; break;
    default: s = {};
  }
  // A required field may not be null, nor an empty string (validation.ts).
  if (f.required && s.type === 'string' && s.minLength === undefined) s = { ...s, minLength: 1 };
  if (!f.required && typeof s.type === 'string') s = { ...s, type: [s.type, 'null'] };
  return {
    ...s,
    ...(f.name && f.name !== f._id ? { title: f.name } : {}),
    ...(f.default !== undefined ? { default: f.default } : {}),
    ...(f.unique ? { description: `${s.description ? `${String(s.description)}; ` : ''}unique` } : {}),
  };
}

/** Component names of a collection's schemas (collection ids never hold a dot). */
export const recordNames = (c: CollectionDef) => ({
  record: `Record.${c._id}`, create: `RecordCreate.${c._id}`, update: `RecordUpdate.${c._id}`, listItem: listItemName(`Record.${c._id}`),
});

const time: Schema = { type: 'string', format: 'date-time', readOnly: true };

/** The record, create-body and update-body schemas of one collection. */
export function collectionSchemas(c: CollectionDef): Record<string, Schema> {
  const names = recordNames(c);
  const fields: Record<string, Schema> = {};
  const defs = c.fields ?? [];
  for (const f of defs) fields[f._id] = fieldSchema(f);
  const required = defs.filter((f) => f.required).map((f) => f._id);
  // A default fills an absent field on create: such a field may be left out.
  const requiredOnCreate = defs.filter((f) => f.required && f.default === undefined).map((f) => f._id);
  const schemaless = defs.length === 0;
  const note = schemaless ? 'Schemaless collection: any keys are stored as given.' : 'Keys not in the schema are stored as given.';
  const record: Schema = {
    type: 'object',
    description: `A record of \`${c._id}\`${c.name && c.name !== c._id ? ` (${c.name})` : ''}. ${note}`,
    required: ['_id', ...required.filter((k) => k !== '_id'), 'createdAt', 'updatedAt'],
    properties: {
      _id: { type: 'string', readOnly: true },
      ...fields,
      _owner: { type: 'string', readOnly: true, description: 'User `_id` of the creator (absent for anonymous creates)' },
      createdAt: time,
      updatedAt: time,
    },
    additionalProperties: true,
  };
  return {
    [names.record]: record,
    [names.listItem]: listItemSchema(record),
    [names.create]: withoutDefaults({
      type: 'object',
      description: `Fields of a new \`${c._id}\` record. ${note} \`_id\` may be given (pattern below; not \`fields\`, \`views\` or \`indexes\` in any case), \`_owner\` by an admin only; \`createdAt\` and \`updatedAt\` are the server's.`,
      ...(requiredOnCreate.length ? { required: requiredOnCreate } : {}),
      properties: {
        _id: { type: 'string', pattern: ID_PATTERN.source, not: { pattern: '^(?:[Ff][Ii][Ee][Ll][Dd][Ss]|[Vv][Ii][Ee][Ww][Ss]|[Ii][Nn][Dd][Ee][Xx][Ee][Ss])$' } },
        ...fields,
        _owner: { type: 'string', description: 'Admins only: create the record on behalf of this user' },
        createdAt: false,
        updatedAt: false,
      },
      propertyNames: KEY_NAME,
      additionalProperties: true,
    }),
    [names.update]: withoutDefaults({
      type: 'object',
      description: `The fields to change (partial: absent fields stay). ${note} System keys (\`_id\`, \`_owner\`, \`createdAt\`, \`updatedAt\`) may only repeat the record's values.`,
      properties: fields,
      propertyNames: KEY_NAME,
      additionalProperties: true,
    }),
  };
}

/** Keys the server stores: not starting with `$`, without a dot, not `__proto__`. */
const KEY_NAME: Schema = { pattern: '^(?!\\$)[^.]*$', not: { const: '__proto__' } };

const SYSTEM = ['_id', '_owner', 'createdAt', 'updatedAt'];

const ACCESS: Record<AccessLevel, Access> = { public: 'optional', private: 'user', 'only-user': 'user' };
const RULE: Record<AccessLevel, string> = {
  public: 'anyone, with or without a token', private: 'any signed-in user', 'only-user': 'the record\'s owner only (and admins)',
};

/** `/database/{id}` and `/database/{id}/{recordId}` for one collection, under its access rules. */
export function collectionPaths(c: CollectionDef): Record<string, Schema> {
  const names = recordNames(c);
  const tag = `records: ${c._id}`;
  // Missing keys (hand-edited or imported settings) read as the database module's defaults.
  const s: CollectionDef['setting'] = Object.assign({ read: 'private', write: 'private', update: 'private' }, c.setting);
  const remove = s.remove ?? s.update;
  // 403: the record belongs to another user under an `only-user` rule; a change also needs the
  // caller to be able to read the record (it answers with it), so `read: only-user` counts too.
  const forbidden = (...levels: AccessLevel[]) => (levels.includes('only-user') ? [403] : []);
  const rule = (op: string, level: AccessLevel) => `\`setting.${op}\` = \`${level}\`: ${RULE[level]}.`;

  const update: OpSpec = {
    id: `records.${c._id}.update`, tag, summary: `Update a ${c._id} record`, access: ACCESS[s.update],
    description: `Partial update. ${rule('update', s.update)}`,
    body: ref(names.update), ok: json(200, 'The record', ref(names.record)), errors: [404, 409, ...forbidden(s.update, s.read)],
  };
  const list: OpSpec = {
    id: `records.${c._id}.list`, tag, summary: `List ${c._id} records`, access: ACCESS[s.read], list: true,
    description: `${rule('read', s.read)}${s.read === 'only-user' ? ' Lists hold the caller\'s own records only.' : ''}`,
    params: [
      { name: 'view', in: 'query', description: 'A view `_id` of this collection: its filter is ANDed with `filter[...]`', schema: { type: 'string' } },
      ...filterParameters(['_id', ...(c.fields ?? []).map((f) => f._id).filter((k) => !SYSTEM.includes(k)), '_owner', 'createdAt', 'updatedAt']),
    ],
    ok: json(200, 'A page of records', pageOf(names.record)),
  };
  return {
    [`/database/${c._id}`]: pathItem(`/database/${c._id}`, {
      get: list,
      post: {
        id: `records.${c._id}.create`, tag, summary: `Create a ${c._id} record`, access: ACCESS[s.write],
        description: rule('write', s.write), body: ref(names.create),
        ok: json(201, 'The record, with `_id`, `createdAt`, `updatedAt`', ref(names.record)), errors: [409],
      },
    }),
    [`/database/${c._id}/{id}`]: pathItem(`/database/${c._id}/{id}`, {
      get: {
        id: `records.${c._id}.get`, tag, summary: `Get a ${c._id} record`, access: ACCESS[s.read], description: rule('read', s.read),
        ok: json(200, 'The record', ref(names.record)), errors: forbidden(s.read),
      },
      ...putAndPatch(update),
      delete: {
        id: `records.${c._id}.delete`, tag, summary: `Delete a ${c._id} record`, access: ACCESS[remove],
        description: rule('remove', remove), ok: noContent('Deleted'), errors: forbidden(remove, s.read),
      },
    }),
  };
}
