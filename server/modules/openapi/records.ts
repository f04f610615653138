// The per-collection part of the document: for each collection, a record schema built from its
// fields (plus create and update bodies) and the paths `/database/{id}` and `/database/{id}/{id}`.
import type { AccessLevel, CollectionDef, FieldDef } from '../../shared/models.js';
import { json, listOf, noContent, pathItem, putAndPatch, ref, type Access, type OpSpec, type Schema } from './ops.js';
import { ID_PATTERN } from '../../core/ids.js';

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
    case 'date': s = { type: 'string', format: 'date-time', description: 'ISO 8601 date or date-time, stored as given' }; break;
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
  record: `Record.${c._id}`, create: `RecordCreate.${c._id}`, update: `RecordUpdate.${c._id}`,
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
  return {
    [names.record]: {
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
    },
    [names.create]: {
      type: 'object',
      description: `Fields of a new \`${c._id}\` record. ${note} \`_id\` may be given (pattern below), \`_owner\` by an admin only.`,
      ...(requiredOnCreate.length ? { required: requiredOnCreate } : {}),
      properties: { _id: { type: 'string', pattern: ID_PATTERN.source }, ...fields, _owner: { type: 'string' } },
      additionalProperties: true,
    },
    [names.update]: {
      type: 'object',
      description: `The fields to change (partial: absent fields stay). ${note}`,
      properties: fields,
      additionalProperties: true,
    },
  };
}

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
  const forbidden = (level: AccessLevel) => (level === 'only-user' ? [403] : []);
  const rule = (op: string, level: AccessLevel) => `\`setting.${op}\` = \`${level}\`: ${RULE[level]}.`;

  const update: OpSpec = {
    id: `records.${c._id}.update`, tag, summary: `Update a ${c._id} record`, access: ACCESS[s.update],
    description: `Partial update. ${rule('update', s.update)}`,
    body: ref(names.update), ok: json(200, 'The record', ref(names.record)), errors: [404, 409, ...forbidden(s.update)],
  };
  const list: OpSpec = {
    id: `records.${c._id}.list`, tag, summary: `List ${c._id} records`, access: ACCESS[s.read], list: true,
    description: `${rule('read', s.read)}${s.read === 'only-user' ? ' Lists hold the caller\'s own records only.' : ''}`,
    params: [{ name: 'view', in: 'query', description: 'A view `_id` of this collection: its filter is ANDed with `filter[...]`', schema: { type: 'string' } }],
    ok: json(200, 'A page of records', listOf(ref(names.record))),
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
        description: rule('remove', remove), ok: noContent('Deleted'), errors: forbidden(remove),
      },
    }),
  };
}
