// Request bodies of the database group (zod): collections, fields, views, indexes.
import { z } from 'zod';
import { IdSchema } from '../../core/ids.js';
import { FIELD_TYPES } from '../../shared/models.js';

const id = IdSchema;
const name = z.string().min(1).max(200);

/** Who may read, create, change and delete records: `public` anyone, `private` any signed-in
 *  user, `only-user` the record's owner (admins always may). The reference marks `read`, `write`
 *  and `update` required on creation; `remove` follows `update` unless given. */
const FullSetting = z.object({
  read: z.enum(['public', 'private', 'only-user']),
  write: z.enum(['public', 'private']),
  update: z.enum(['private', 'only-user']),
  remove: z.enum(['private', 'only-user']).nullable().optional(),
});
/** On update any of them may be given alone. */
const Setting = FullSetting.partial();

/** A collection of a dump: its setting may be partial (missing keys take the defaults), so
 *  that hand-written fixtures stay short. */
export const DumpCollectionHead = z.object({ _id: id, name: name.optional(), setting: Setting.optional() });

/** `PUT /database/{id}`; `_id` may be repeated but not changed. */
export const CollectionPatchBody = z.object({ _id: z.string().optional(), name: name.optional(), setting: Setting.optional() });

/** `PUT /database/{id}` that replaces the collection's settings (v2): `setting` whole and
 *  required as on creation, `name` back to the id when absent; `_id` may be repeated. The
 *  fields, views and indexes are changed at their own addresses. */
export const CollectionReplaceBody = z.object({ _id: z.string().optional(), name: name.optional(), setting: FullSetting });

/** `PUT /database`: the collection is named by `_id`. */
export const CollectionByIdBody = CollectionPatchBody.extend({ _id: z.string() });

const FieldOptions = z.object({
  values: z.array(z.union([z.string(), z.number(), z.boolean()])).min(1).max(1000).optional(),
  collection: z.string().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  minLength: z.number().int().nonnegative().optional(),
  maxLength: z.number().int().nonnegative().optional(),
}).loose();

export const NewFieldBody = z.object({
  _id: id.optional(),
  name: name.optional(),
  type: z.enum(FIELD_TYPES),
  required: z.boolean().optional(),
  unique: z.boolean().optional(),
  default: z.unknown().optional(),
  options: FieldOptions.optional(),
});

/** `POST /database`: `fields` (optional) are created with the collection, each checked as
 *  `POST /database/{collection}/fields` checks it. */
export const NewCollectionBody = z.object({
  _id: id, name: name.optional(), setting: FullSetting,
  fields: z.array(NewFieldBody).max(200).optional(),
});

/** `PUT .../fields/{id}`: any of the settings; `default: null` clears the default. */
export const FieldPatchBody = NewFieldBody.partial();

/** `PUT .../fields/{id}` that replaces the field (v2): what a creation takes (`type` required);
 *  the settings not sent are removed, `name` back to the field's key. */
export const FieldReplaceBody = NewFieldBody.extend({ _id: z.string().optional() });

const paths = z.union([z.array(z.string().min(1).max(200)).max(100), z.string().max(2000)]);

export const NewViewBody = z.object({
  _id: id.optional(),
  name: name.optional(),
  filter: z.record(z.string(), z.unknown()).optional(),
  sort: z.string().max(2000).optional(),
  fields: paths.optional(),
});

export const ViewPatchBody = NewViewBody.extend({ _id: z.string().optional() });

/** `PUT .../views/{id}` that replaces the view (v2): the same body; `filter`, `sort` and
 *  `fields` not sent are removed, `name` back to the view's id. */
export const ViewReplaceBody = ViewPatchBody;

export const NewIndexBody = z.object({
  _id: id.optional(),
  fields: z.array(z.string().min(1).max(200)).min(1).max(16),
  unique: z.boolean().optional(),
});
