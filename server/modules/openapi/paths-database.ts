// Paths of the database group: collections, generic record paths (any collection), and each
// collection's fields, views and indexes (admin only). Per-collection record paths: records.ts.
import { json, listOf, noContent, pathItem, putAndPatch, ref, type OpSpec, type Schema } from './ops.js';

const COLLECTIONS = 'database: collections';
const RECORDS = 'database: records';
const SCHEMA = 'database: fields, views, indexes';

const schemaList = (what: string, item: string): OpSpec['ok'] =>
  json(200, `Every ${what} of the collection (the whole list: meta.total = meta.limit = its length, offset 0)`, listOf(ref(item)));

export function databasePaths(): Record<string, Schema> {
  const recordUpdate: OpSpec = {
    id: 'records.update', tag: RECORDS, summary: 'Update a record', access: 'optional',
    description: 'Partial update: given fields replace, absent fields stay. Access: `setting.update` of the collection.',
    body: ref('RecordInput'), ok: json(200, 'The record', ref('Record')), errors: [403, 404, 409],
  };
  const collectionUpdate: OpSpec = {
    id: 'collections.update', tag: COLLECTIONS, summary: 'Update a collection\'s settings', access: 'admin',
    description: 'Partial: `name`, `setting` (given keys replace, absent keys stay; `remove: null` follows `update` again). `_id` cannot change.',
    body: ref('CollectionUpdate'), ok: json(200, 'The collection', ref('Collection')), errors: [404],
  };
  const fieldUpdate: OpSpec = {
    id: 'fields.update', tag: SCHEMA, summary: 'Change a field\'s settings', access: 'admin',
    body: ref('FieldUpdate'), ok: json(200, 'The field', ref('Field')), errors: [404, 409],
  };
  const viewUpdate: OpSpec = {
    id: 'views.update', tag: SCHEMA, summary: 'Update a view', access: 'admin',
    body: ref('ViewUpdate'), ok: json(200, 'The view', ref('View')), errors: [404],
  };

  return {
    '/database': pathItem('/database', {
      get: {
        id: 'collections.list', tag: COLLECTIONS, summary: 'List collections', access: 'admin', list: true,
        ok: json(200, 'A page of collections', listOf(ref('Collection'))),
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
        ok: json(200, 'A page of records', listOf(ref('Record'))), errors: [403],
      },
      post: {
        id: 'records.create', tag: RECORDS, summary: 'Create a record', access: 'optional',
        description: 'Access: `setting.write` of the collection. Created with a token, the record\'s `_owner` is the caller.',
        body: ref('RecordInput'), ok: json(201, 'The record', ref('Record')), errors: [403, 409],
      },
      ...putAndPatch(collectionUpdate),
      delete: {
        id: 'collections.delete', tag: COLLECTIONS, summary: 'Delete a collection', access: 'admin',
        description: 'Its records, fields, views and indexes go with it.', ok: noContent('Deleted'),
      },
    }),
    '/database/{collection}/{id}': pathItem('/database/{collection}/{id}', {
      get: {
        id: 'records.get', tag: RECORDS, summary: 'Get a record', access: 'optional', description: 'Access: `setting.read` of the collection.',
        ok: json(200, 'The record', ref('Record')), errors: [403],
      },
      ...putAndPatch(recordUpdate),
      delete: {
        id: 'records.delete', tag: RECORDS, summary: 'Delete a record', access: 'optional', description: 'Access: `setting.remove` (default: `setting.update`).',
        ok: noContent('Deleted'), errors: [403],
      },
    }),

    '/database/{collection}/fields': pathItem('/database/{collection}/fields', {
      get: { id: 'fields.list', tag: SCHEMA, summary: 'List fields', access: 'admin', ok: schemaList('field', 'Field') },
      post: {
        id: 'fields.create', tag: SCHEMA, summary: 'Create a field', access: 'admin',
        description: 'The `_id` (or the `name`) is the key in records. A `unique` field builds its index first (409 on existing duplicates).',
        body: ref('FieldCreate'), ok: json(201, 'The field', ref('Field')), errors: [409],
      },
    }),
    '/database/{collection}/fields/{id}': pathItem('/database/{collection}/fields/{id}', {
      get: { id: 'fields.get', tag: SCHEMA, summary: 'Get a field', access: 'admin', ok: json(200, 'The field', ref('Field')) },
      ...putAndPatch(fieldUpdate),
      delete: { id: 'fields.delete', tag: SCHEMA, summary: 'Delete a field', access: 'admin', description: 'Stored values stay in the records.', ok: noContent('Deleted') },
    }),
    '/database/{collection}/views': pathItem('/database/{collection}/views', {
      get: { id: 'views.list', tag: SCHEMA, summary: 'List views', access: 'admin', ok: schemaList('view', 'View') },
      post: {
        id: 'views.create', tag: SCHEMA, summary: 'Create a view', access: 'admin',
        body: ref('ViewCreate'), ok: json(201, 'The view', ref('View')), errors: [409],
      },
    }),
    '/database/{collection}/views/{id}': pathItem('/database/{collection}/views/{id}', {
      get: { id: 'views.get', tag: SCHEMA, summary: 'Get a view', access: 'admin', ok: json(200, 'The view', ref('View')) },
      ...putAndPatch(viewUpdate),
      delete: { id: 'views.delete', tag: SCHEMA, summary: 'Delete a view', access: 'admin', ok: noContent('Deleted') },
    }),
    '/database/{collection}/indexes': pathItem('/database/{collection}/indexes', {
      get: { id: 'indexes.list', tag: SCHEMA, summary: 'List indexes', access: 'admin', ok: schemaList('index', 'Index') },
      post: {
        id: 'indexes.create', tag: SCHEMA, summary: 'Create an index', access: 'admin',
        description: 'A unique index over existing duplicates, or a second index over the same fields, is a 409.',
        body: ref('IndexCreate'), ok: json(201, 'The index', ref('Index')), errors: [409],
      },
    }),
    '/database/{collection}/indexes/{id}': pathItem('/database/{collection}/indexes/{id}', {
      get: { id: 'indexes.get', tag: SCHEMA, summary: 'Get an index', access: 'admin', ok: json(200, 'The index', ref('Index')) },
      delete: { id: 'indexes.delete', tag: SCHEMA, summary: 'Delete an index', access: 'admin', ok: noContent('Deleted') },
    }),
  };
}
