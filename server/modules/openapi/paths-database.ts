// Paths of the database group: collections, generic record paths (any collection), and each
// collection's fields, views and indexes (admin only). Per-collection record paths: records.ts.
import { json, listOf, noContent, pageOf, pathItem, putAndPatch, ref, type OpSpec, type Schema } from './ops.js';
import { crudPaths, itemPath, type Resource } from './crud-paths.js';

const COLLECTIONS = 'database: collections';
const RECORDS = 'database: records';
const SCHEMA = 'database: fields, views, indexes';

const schemaList = (what: string, item: string): OpSpec['ok'] =>
  json(200, `Every ${what} of the collection (the whole list: meta.total = meta.limit = its length, offset 0)`, listOf(ref(item)));

export function databasePaths(): Record<string, Schema> {
  const record: Resource = { id: 'records', tag: RECORDS, access: 'optional', noun: 'record', schema: 'Record' };
  const collectionUpdate: OpSpec = {
    id: 'collections.update', tag: COLLECTIONS, summary: 'Update a collection\'s settings', access: 'admin',
    description: 'Partial: `name`, `setting` (given keys replace, absent keys stay; `remove: null` follows `update` again). `_id` cannot change.',
    body: ref('CollectionUpdate'), ok: json(200, 'The collection', ref('Collection')), errors: [404],
  };
  // A collection's fields, views and indexes: whole lists (no paging), admin only.
  const part = (noun: string, schema: string): Resource => ({ id: `${noun}s`, tag: SCHEMA, access: 'admin', noun, schema });
  const field = part('field', 'Field');
  const view = part('view', 'View');
  const index = { ...part('index', 'Index'), id: 'indexes', plural: 'indexes' };
  const wholeList = (r: Resource) => ({ list: false, ok: schemaList(r.noun, r.schema) });

  return {
    '/database': pathItem('/database', {
      get: {
        id: 'collections.list', tag: COLLECTIONS, summary: 'List collections', access: 'admin', list: true,
        ok: json(200, 'A page of collections', pageOf('Collection')),
      },
      post: {
        id: 'collections.create', tag: COLLECTIONS, summary: 'Create a collection', access: 'admin',
        description: '`setting.read`, `setting.write` and `setting.update` are required (`remove` follows `update` unless given). `fields` (optional) are created with the collection, each checked as `POST /database/{collection}/fields` checks it. A collection without fields is schemaless.',
        body: ref('CollectionCreate'), ok: json(201, 'The collection', ref('Collection')), errors: [409],
      },
      ...putAndPatch({
        id: 'collections.updateById', tag: COLLECTIONS, summary: 'Update the collection named by `_id`', access: 'admin',
        body: ref('CollectionUpdateById'), ok: json(200, 'The collection', ref('Collection')), errors: [404],
      }),
    }),
    // One path item for the collection (PUT/PATCH/DELETE) and its records (GET/POST), as served.
    '/database/{collection}': pathItem('/database/{collection}', {
      get: {
        id: 'records.list', tag: RECORDS, summary: 'List records of a collection', access: 'optional', list: true,
        description: 'Access: `setting.read` of the collection; `only-user` lists hold the caller\'s records only. '
          + 'Each collection also has its own path with its record schema.',
        params: [{ name: 'view', in: 'query', description: 'A view `_id`: its filter is ANDed with `filter[...]`', schema: { type: 'string' } }],
        ok: json(200, 'A page of records', pageOf('Record')), errors: [403],
      },
      post: {
        id: 'records.create', tag: RECORDS, summary: 'Create a record', access: 'optional',
        description: 'Access: `setting.write` of the collection. Created with a token, the record\'s `_owner` is the caller.',
        body: ref('RecordInput'), ok: json(201, 'The record', ref('Record')), errors: [403, 409],
      },
      ...putAndPatch(collectionUpdate),
      delete: {
        id: 'collections.delete', tag: COLLECTIONS, summary: 'Delete a collection', access: 'admin',
        description: 'Its records, fields, views and indexes go with it. A collection that a `reference` field of another collection points to is a 409 (delete or change that field first).',
        ok: noContent('Deleted'), errors: [409],
      },
    }),
    '/database/{collection}/{id}': itemPath('/database/{collection}/{id}', record, {
      get: { description: 'Access: `setting.read` of the collection.', errors: [403] },
      update: {
        description: 'Partial update: given fields replace, absent fields stay. Access: `setting.update` of the collection.',
        body: ref('RecordInput'), errors: [403, 409],
      },
      remove: { description: 'Access: `setting.remove` (default: `setting.update`).', errors: [403] },
    }),

    ...crudPaths('/database/{collection}/fields', field, {
      list: wholeList(field),
      create: {
        description: 'The `_id` (or the `name`) is the key in records. A `unique` field builds its index first (409 on existing duplicates).',
        body: ref('FieldCreate'), errors: [409],
      },
      get: {},
      update: { summary: 'Change a field\'s settings', body: ref('FieldUpdate'), errors: [409] },
      remove: { description: 'Stored values stay in the records.' },
    }),
    ...crudPaths('/database/{collection}/views', view, {
      list: wholeList(view),
      create: { body: ref('ViewCreate'), errors: [409] },
      get: {},
      update: { body: ref('ViewUpdate') },
      remove: {},
    }),
    ...crudPaths('/database/{collection}/indexes', index, {
      list: wholeList(index),
      create: {
        description: 'A unique index over existing duplicates, or a second index over the same fields, is a 409.',
        body: ref('IndexCreate'), errors: [409],
      },
      get: {},
      remove: {},
    }),
  };
}
