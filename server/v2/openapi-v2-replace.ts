// PUT in the v2 OpenAPI document: a whole replacement wherever v1's PUT is a partial update.
// Each v1 change body (`WebhookUpdate`, ...) is swapped, on PUT only, for the body the
// replacement validates (`WebhookReplace`, converted from the same zod schema the service
// parses it with, so that its `required` list is the server's), and the operation says what a
// replacement removes and keeps. PATCH keeps v1's body and merges.
import type { Schema } from '../modules/openapi/index.js';
import { fromZod } from '../modules/openapi/index.js';
import { schemas as db } from '../modules/database/index.js';
import { schemas as auth } from '../modules/auth/index.js';
import { schemas as users } from '../modules/users/index.js';
import { schemas as chats } from '../modules/chats/index.js';
import { schemas as hooks } from '../modules/webhooks/index.js';
import { schemas as scenarios } from '../modules/scenarios/index.js';
import { schemas as secrets } from '../modules/credentials/index.js';

interface Replacement { name: string; schema: () => Schema; says: string }

const KEPT = 'Sending a read-only field (`_id`, `createdAt`, `updatedAt`, ...) with its current value is allowed (a PUT of what GET answered); another value is a 422 `read_only`.';

/** v1's change body → the replacement body of v2's PUT and what the replacement does. */
const REPLACEMENTS: Record<string, Replacement> = {
  CollectionUpdate: {
    name: 'CollectionReplace', schema: () => fromZod(db.CollectionReplaceBody),
    says: 'Replaces the collection\'s own settings: `setting` is required whole (`read`, `write`, `update`; `remove` absent follows `update`), `name` absent goes back to the collection\'s id. Its fields, views and indexes are kept (they change at their own paths).',
  },
  FieldUpdate: {
    name: 'FieldReplace', schema: () => fromZod(db.FieldReplaceBody),
    says: 'Replaces the field\'s settings: `type` is required; `required`, `unique`, `default` and `options` not sent are removed, `name` absent goes back to the field\'s key.',
  },
  ViewUpdate: {
    name: 'ViewReplace', schema: () => fromZod(db.ViewReplaceBody),
    says: 'Replaces the view: `filter`, `sort` and `fields` not sent are removed, `name` absent goes back to the view\'s id.',
  },
  ProfileUpdate: {
    name: 'ProfileReplace', schema: () => fromZod(auth.UpdateMeBody, { description: `The whole profile; ${auth.ME_READ_ONLY.join(', ')} are read-only (422 unless repeating the current value)` }),
    says: 'Replaces the profile: `name` absent becomes empty, other profile fields not sent are removed; `email`, `role` and the password are kept.',
  },
  UserUpdate: {
    name: 'UserReplace', schema: () => fromZod(users.ReplaceUserBody),
    says: 'Replaces the user: `email` is required; `name` absent becomes empty, `role` absent becomes `user` (409 for the last administrator), other profile fields not sent are removed. The password, which no answer shows, changes only when `password` is sent.',
  },
  ChannelUpdate: {
    name: 'ChannelReplace', schema: () => fromZod(chats.updateChannelSchema),
    says: 'Replaces the channel: a group\'s `name` is required (422 otherwise), `description` not sent is removed, `members` not sent leaves the owner alone (as a creation without members would). A direct channel\'s members are fixed: they may only be repeated. `type` and `_owner` are kept.',
  },
  MessageUpdate: {
    name: 'MessageReplace', schema: () => fromZod(chats.replaceMessageSchema),
    says: 'Replaces the message: `text` is required, `type` absent goes back to `text`; its channel and author are kept.',
  },
  WebhookUpdate: {
    name: 'WebhookReplace', schema: () => fromZod(hooks.ReplaceWebhookBody),
    says: 'Replaces the webhook: `name`, `url` and `events` are required; `active` absent becomes true, `filter` and `batch` not sent (or null) are removed. The signing secret is kept.',
  },
  ScenarioUpdate: {
    name: 'ScenarioReplace', schema: () => fromZod(scenarios.NewScenarioBody),
    says: 'Replaces the scenario: `name` is required; `description` not sent is removed, `trigger` absent becomes a manual trigger, `steps` absent none. `active` is kept (it changes by activation; repeating it is allowed). An active scenario is checked in full.',
  },
  SecretUpdate: {
    name: 'SecretReplace', schema: () => fromZod(secrets.ReplaceCredentialBody),
    says: 'Replaces the secret\'s description: `name` is required, `type` absent becomes `generic`, `description` absent empty. The value, which no answer shows, is kept unless `value` is sent.',
  },
};

const SCHEMA_REF = '#/components/schemas/';

/** Rewrites the PUT operations of the document (records are done by the caller). */
export function replacingPuts(doc: { paths: Record<string, Record<string, Schema>>; components: { schemas: Record<string, Schema> } }): void {
  for (const item of Object.values(doc.paths)) {
    const put = item.put;
    const body = (put?.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content?.['application/json'];
    const ref = typeof body?.schema?.$ref === 'string' ? (body.schema.$ref as string) : '';
    const replacement = ref.startsWith(SCHEMA_REF) ? REPLACEMENTS[ref.slice(SCHEMA_REF.length)] : undefined;
    if (!put || !body || !replacement) continue;
    doc.components.schemas[replacement.name] ??= replacement.schema();
    body.schema = { $ref: `${SCHEMA_REF}${replacement.name}` };
    put.summary = `${String(put.summary).replace(/^(Update|Edit|Change)\b/, 'Replace')}`;
    // v1's own words on the change, less its "Partial: ..." sentence.
    const rest = String(put.description ?? '').replace(/^Partial[^.]*\.\s*/, '');
    put.description = `Whole replacement (PATCH merges instead). ${replacement.says} ${KEPT}${rest ? ` ${rest}` : ''}`;
    if (item.patch) item.patch.summary = String(item.patch.summary).replace(/ \(PATCH: same as PUT\)$/, ' (merge the fields sent)');
  }
}
