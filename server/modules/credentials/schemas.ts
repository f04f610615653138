// Request bodies of the credentials API.
import { z } from 'zod';

/** A name usable in templates: `{{secrets.NAME}}`. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const name = z.string().regex(SECRET_NAME, 'must match ^[A-Za-z_][A-Za-z0-9_]{0,63}$ (usable as {{secrets.NAME}})');
const type = z.string().min(1).max(64);
const description = z.string().max(2000);
const value = z.string().min(1).max(64 * 1024);

export const NewCredentialBody = z.object({ name, type: type.optional(), description: description.optional(), value });

export const CredentialChangesBody = z.object({
  name: name.optional(), type: type.optional(), description: description.optional(), value: value.optional(),
});

/** `PUT` that replaces the secret (v2): `name` required, `type` and `description` back to their
 *  defaults when absent; `value`, which no answer ever shows, is kept when absent (sent, it
 *  replaces the value). */
export const ReplaceCredentialBody = NewCredentialBody.extend({ value: value.optional() });

/** A secret as an import or a seed gives it: its metadata only. A value never travels in a dump
 *  (set it with PUT /credentials/{id} after an import). */
export const DumpCredential = z.object({
  _id: z.string().min(1).max(64),
  name,
  type: type.optional(),
  description: description.optional(),
}).catchall(z.unknown()).superRefine((s, ctx) => {
  for (const k of ['value', 'sealedValue']) {
    if (k in s) ctx.addIssue({ code: 'custom', path: [k], input: s[k], message: 'secret values are never imported; set them with PUT /credentials/{id}', params: { reason: 'read_only' } });
  }
});
