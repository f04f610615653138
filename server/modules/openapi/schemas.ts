// components.schemas of the OpenAPI document: the error body, list meta, the objects the API
// answers with (written here), and the request bodies (converted from the modules' zod schemas,
// so that the document says what the server validates).
import { z } from 'zod';
import { ERROR_STATUS, VALIDATION_REASONS } from '../../shared/error-codes.js';
import { FIELD_TYPES } from '../../shared/models.js';
import { EVENT_TYPES } from '../../shared/events.js';
import { schemas as db } from '../database/index.js';
import { schemas as auth } from '../auth/index.js';
import { schemas as users } from '../users/index.js';
import { schemas as chats } from '../chats/index.js';
import { schemas as hooks } from '../webhooks/index.js';
import { schemas as scenarios } from '../scenarios/index.js';
import { schemas as secrets } from '../credentials/index.js';
import { listItemName, listItemSchema, ref, withoutDefaults, type Schema } from './ops.js';
import { ID_PATTERN } from '../../core/ids.js';
import { SERVER_FIELDS } from '../../core/read-only.js';

/** A request body schema from a zod schema (JSON Schema 2020-12, the dialect of OpenAPI 3.1). */
export function fromZod(schema: z.ZodType, extra: Schema = {}): Schema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Schema;
  return withoutDefaults({ ...rest, ...extra });
}

/** A create body that refuses these keys outright (422 `read_only`): each is a `false` schema. */
function refusing(schema: Schema, keys: readonly string[]): Schema {
  const properties = { ...((schema.properties ?? {}) as Schema) };
  for (const k of keys) properties[k] = false;
  return {
    ...schema, properties,
    description: `${schema.description ? `${String(schema.description)} ` : ''}${keys.map((k) => `\`${k}\``).join(', ')} are the server's (422 \`read_only\`).`,
  };
}

/** A message's `text` must hold a character that is not white space (a refinement zod cannot
 *  convert; the same rule as a pattern). */
function notBlank(schema: Schema): Schema {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  return { ...schema, properties: { ...properties, text: { ...properties.text, pattern: '\\S' } } };
}

const str: Schema = { type: 'string' };
const id: Schema = { type: 'string', readOnly: true };
const time: Schema = { type: 'string', format: 'date-time', readOnly: true, description: 'ISO 8601 UTC' };
const obj = (properties: Record<string, Schema>, required: string[], extra: Schema = {}): Schema => ({ type: 'object', required, properties, ...extra });

const setting = obj({
  read: { type: 'string', enum: ['public', 'private', 'only-user'] },
  write: { type: 'string', enum: ['public', 'private'] },
  update: { type: 'string', enum: ['private', 'only-user'] },
  remove: { type: 'string', enum: ['private', 'only-user'], description: 'Absent: follows `update`' },
}, ['read', 'write', 'update'], { description: '`public` = anyone; `private` = any signed-in user; `only-user` = the record\'s owner. Admins always pass.' });

const field = obj({
  _id: { type: 'string', description: 'The key of the field in records' },
  name: str,
  type: { type: 'string', enum: [...FIELD_TYPES] },
  required: { type: 'boolean' },
  unique: { type: 'boolean' },
  default: { description: 'Applied on create when the field is absent' },
  options: {
    type: 'object', additionalProperties: true,
    properties: {
      values: { type: 'array', items: {}, description: '`enum`: the allowed values' },
      collection: { type: 'string', description: '`reference`: the referenced collection' },
      min: { type: 'number' }, max: { type: 'number' }, minLength: { type: 'integer' }, maxLength: { type: 'integer' },
    },
  },
  createdAt: time, updatedAt: time,
}, ['_id', 'name', 'type', 'createdAt', 'updatedAt']);

const view = obj({
  _id: str, name: str, filter: { type: 'object', additionalProperties: true, description: 'Object filter: `{ "role": "admin", "age": { "$gte": 25 } }`' },
  sort: str, fields: { type: 'array', items: str }, createdAt: time, updatedAt: time,
}, ['_id', 'name', 'filter', 'createdAt', 'updatedAt']);

const index = obj({ _id: str, fields: { type: 'array', items: str }, unique: { type: 'boolean' }, createdAt: time }, ['_id', 'fields', 'unique', 'createdAt']);

const collection = obj({
  _id: { type: 'string', pattern: ID_PATTERN.source }, name: str, setting: ref('CollectionSetting'),
  fields: { type: 'array', items: ref('Field') }, views: { type: 'array', items: ref('View') }, indexes: { type: 'array', items: ref('Index') },
  createdAt: time, updatedAt: time,
}, ['_id', 'name', 'setting', 'fields', 'views', 'indexes', 'createdAt', 'updatedAt']);

const record = obj({ _id: id, _owner: { type: 'string', description: 'User `_id` of the creator (absent for anonymous creates)' }, createdAt: time, updatedAt: time },
  ['_id', 'createdAt', 'updatedAt'], { additionalProperties: true, description: 'A record: `_id`, the collection\'s fields (and any other keys given), `_owner`, timestamps' });

const user = obj({ _id: id, email: { type: 'string', format: 'email' }, name: str, role: { type: 'string', description: '`admin` or `user` (other strings allowed, no powers)' }, createdAt: time, updatedAt: time },
  ['_id', 'email', 'name', 'role', 'createdAt', 'updatedAt'], { additionalProperties: true, description: 'Profile fields beyond these are stored as given; a password or its hash never leaves the server.' });

const loginResult = obj({
  token: { type: 'string', description: 'Access token (JWT HS256; claims sub, app, role, sid, iat, exp; 15 min)' },
  refreshToken: { type: 'string', description: 'Opaque, single use, rotating (30 days)' },
  user: ref('User'),
}, ['token', 'refreshToken', 'user']);

const file = obj({
  _id: id, name: str, size: { type: 'integer', description: 'Bytes' }, type: { type: 'string', description: 'Media type' },
  url: { type: 'string', format: 'uri', description: '`{base_url}/app/{app_id}/storage/{_id}/download`' },
  _owner: { type: ['string', 'null'] }, createdAt: time, updatedAt: time,
}, ['_id', 'name', 'size', 'type', 'url', 'createdAt', 'updatedAt']);

const channel = obj({
  _id: id, name: str, type: { type: 'string', enum: [...chats.CHANNEL_TYPES] }, description: str,
  members: { type: 'array', items: str, description: 'User ids, in join order' }, _owner: str, createdAt: time, updatedAt: time,
}, ['_id', 'name', 'type', 'members', '_owner', 'createdAt', 'updatedAt']);

const member = obj({ userId: str, name: str, role: { type: 'string', enum: ['owner', 'member'] }, joinedAt: { type: 'string', format: 'date-time' } }, ['userId', 'name', 'role', 'joinedAt']);

const message = obj({
  _id: id, channelId: str, text: str, type: { type: 'string', description: '`text` unless given' },
  author: obj({ _id: str, name: str }, ['_id', 'name']), createdAt: time, updatedAt: time,
}, ['_id', 'channelId', 'text', 'type', 'author', 'createdAt', 'updatedAt']);

// Converted from zod when the document is made, not when the server loads.
const webhook = () => obj({
  _id: id, name: str, url: { type: 'string', format: 'uri' }, events: { type: 'array', items: { type: 'string', description: `\`*\`, \`<group>.*\` or one of ${EVENT_TYPES.join(', ')}` } },
  active: { type: 'boolean' },
  filter: fromZod(hooks.WebhookFilter, { description: '`collection`: record events of that collection only; `match`: conditions on the event\'s `data` in the list filter\'s language (`{ "total": { "$gte": 100 } }`)' }),
  batch: fromZod(hooks.WebhookBatch, { description: 'One delivery `{ type: "batch", events }` of up to `maxEvents`, sent when full or `maxWaitMs` after its first event' }),
  createdAt: time, updatedAt: time,
}, ['_id', 'name', 'url', 'events', 'active', 'createdAt', 'updatedAt']);

const webhookLog = obj({
  _id: id, webhookId: str, eventId: str, event: str, attempt: { type: 'integer' }, status: { type: 'string', enum: ['succeeded', 'failed'] },
  durationMs: { type: 'number' }, error: { type: ['string', 'null'] },
  request: obj({ url: str, headers: { type: 'object', additionalProperties: str }, body: str }, ['headers', 'body']),
  response: { type: ['object', 'null'], properties: { status: { type: 'integer' }, body: { type: 'string', description: 'First 4 KiB' } } },
  nextAttemptAt: { type: ['string', 'null'], format: 'date-time', description: 'When this failed attempt is retried; null when it succeeded or was the last' },
  redeliveryOf: { type: 'string', description: 'The log entry whose event this attempt sent again' },
  createdAt: time,
}, ['_id', 'webhookId', 'eventId', 'event', 'attempt', 'status', 'durationMs', 'createdAt']);

const trigger: Schema = {
  type: 'object', required: ['type'], additionalProperties: true,
  properties: {
    type: { type: 'string', enum: [...scenarios.TRIGGER_TYPES] },
    events: { type: 'array', items: str, description: '`event` trigger: patterns as for webhooks' },
    filter: obj({ collection: str }, ['collection']),
    cron: { type: 'string', description: '`schedule` trigger: cron pattern (5 fields, or 6 with seconds)' },
    timezone: str,
  },
};

const step: Schema = {
  type: 'object', required: ['type'], additionalProperties: true,
  properties: { type: { type: 'string', minLength: 1, maxLength: 64, description: `One of ${scenarios.STEP_TYPES.join(', ')} to run; a draft may hold any type (checked on activation and run)` } },
  description: 'http { method, url, headers, body }; record.create { collection, data }; record.update { collection, id, data }; '
    + 'record.delete { collection, id }; message.send { channelId, text, messageType }; delay { ms }. '
    + 'Strings may use {{event.data...}}, {{steps.N.output...}}, {{secrets.NAME}}.',
};

const scenario = obj({
  _id: id, name: str, description: str, active: { type: 'boolean' }, trigger: ref('Trigger'), steps: { type: 'array', items: ref('Step') },
  createdAt: time, updatedAt: time,
}, ['_id', 'name', 'active', 'trigger', 'steps', 'createdAt', 'updatedAt']);

const execution = obj({
  _id: id, scenarioId: str, status: { type: 'string', enum: ['running', 'succeeded', 'failed'] }, trigger: { type: 'object', additionalProperties: true },
  startedAt: { type: 'string', format: 'date-time' }, finishedAt: { type: ['string', 'null'], format: 'date-time' },
  durationMs: { type: ['number', 'null'] }, error: { type: ['string', 'null'] },
  steps: { type: 'array', items: obj({ type: str, status: { type: 'string', enum: ['succeeded', 'failed', 'skipped'] }, output: {}, error: { type: ['string', 'null'] } }, ['type', 'status']) },
}, ['_id', 'scenarioId', 'status', 'trigger', 'startedAt', 'steps']);

const secret = obj({ _id: id, name: str, type: str, description: str, createdAt: time, updatedAt: time },
  ['_id', 'name', 'type', 'description', 'createdAt', 'updatedAt'], { description: 'Secret metadata: the value is write-only and never returned.' });

const error = obj({
  error: obj({
    code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
    message: str,
    details: {
      type: 'object', additionalProperties: true,
      properties: {
        field: str,
        reason: { type: 'string', enum: [...VALIDATION_REASONS] },
        errors: { type: 'array', items: obj({ field: str, reason: { type: 'string', enum: [...VALIDATION_REASONS] }, message: str }, ['field', 'reason']) },
        requestId: str,
      },
    },
  }, ['code', 'message', 'details']),
}, ['error']);

/** Every named schema of the document but the per-collection records (records.ts adds those). */
export function componentSchemas(): Record<string, Schema> {
  const out: Record<string, Schema> = {
    Error: error,
    ListMeta: obj({ total: { type: 'integer', minimum: -1, description: 'Items matching the list\'s filter in all; -1 when asked for with `skipTotal=true`' }, limit: { type: 'integer' }, offset: { type: 'integer' } }, ['total', 'limit', 'offset']),
    CollectionSetting: setting, Collection: collection, Field: field, View: view, Index: index, Record: record,
    User: user, LoginResult: loginResult, File: file, Channel: channel, Member: member, Message: message,
    Webhook: webhook(), WebhookCreated: { allOf: [ref('Webhook'), obj({ secret: { type: 'string', description: '`whsec_...`, shown this once' } }, ['secret'])] },
    WebhookLog: webhookLog, Trigger: trigger, Step: step, Scenario: scenario, Execution: execution, Secret: secret,

    CollectionCreate: fromZod(db.NewCollectionBody), CollectionUpdate: fromZod(db.CollectionPatchBody), CollectionUpdateById: fromZod(db.CollectionByIdBody),
    FieldCreate: fromZod(db.NewFieldBody), FieldUpdate: fromZod(db.FieldPatchBody),
    ViewCreate: fromZod(db.NewViewBody), ViewUpdate: fromZod(db.ViewPatchBody), IndexCreate: fromZod(db.NewIndexBody),
    RecordInput: { type: 'object', additionalProperties: true, description: 'The record\'s fields' },
    RegisterBody: refusing(fromZod(auth.RegisterBody), auth.REGISTER_READ_ONLY), LoginBody: fromZod(auth.LoginBody), RefreshBody: fromZod(auth.RefreshBody),
    LogoutBody: fromZod(auth.LogoutBody), ForgotPasswordBody: fromZod(auth.ForgotBody), ResetPasswordBody: fromZod(auth.ResetBody),
    ProfileUpdate: fromZod(auth.UpdateMeBody, { description: `Profile fields; ${auth.ME_READ_ONLY.join(', ')} are read-only (422)` }),
    ChangePasswordBody: fromZod(auth.ChangePasswordBody),
    UserCreate: refusing(fromZod(users.CreateUserBody), users.SYSTEM_FIELDS), UserUpdate: fromZod(users.UpdateUserBody),
    ChannelCreate: refusing(fromZod(chats.createChannelSchema), chats.NEW_CHANNEL_READ_ONLY), ChannelUpdate: fromZod(chats.updateChannelSchema), MemberAdd: fromZod(chats.addMemberSchema),
    MessageCreate: notBlank(refusing(fromZod(chats.postMessageSchema), chats.NEW_MESSAGE_READ_ONLY)), MessageUpdate: notBlank(fromZod(chats.updateMessageSchema)),
    WebhookCreate: refusing(fromZod(hooks.NewWebhookBody), SERVER_FIELDS), WebhookUpdate: fromZod(hooks.WebhookChangesBody),
    ScenarioCreate: refusing(fromZod(scenarios.NewScenarioBody), SERVER_FIELDS), ScenarioUpdate: fromZod(scenarios.ScenarioChangesBody),
    SecretCreate: refusing(fromZod(secrets.NewCredentialBody), SERVER_FIELDS), SecretUpdate: fromZod(secrets.CredentialChangesBody),
  };
  // Items of the lists that take `fields=` (ops.ts pageOf).
  for (const name of LISTED) out[listItemName(name)] = listItemSchema(out[name]);
  return out;
}

/** The objects that list endpoints answer in pages. */
const LISTED = ['Collection', 'Record', 'User', 'File', 'Channel', 'Member', 'Message', 'Webhook', 'WebhookLog', 'Scenario', 'Execution', 'Secret'];
