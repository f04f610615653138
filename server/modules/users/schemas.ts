// Request bodies of the users API and the user fields the auth API shares with it: email,
// password (8 to 72 bytes: bcrypt ignores anything longer), name, role, and free profile fields.
import { z } from 'zod';
import { ApiError } from '../../core/errors.js';
import type { FieldError } from '../../shared/error-codes.js';
import { checkKeys } from '../../core/keys.js';
import { IdSchema } from '../../core/ids.js';
import { readOnlyErrors, SERVER_FIELDS, withoutReadOnly } from '../../core/read-only.js';

/** The one email rule: the API, the console's first admin, imports and seeds, record fields of
 *  type `email`. Stored lower-cased and trimmed (repo.ts normalizeEmail). */
export const EmailSchema = z.email().max(254);
export const isEmail = (v: string): boolean => EmailSchema.safeParse(v).success;

/** bcrypt reads at most 72 bytes: a longer password (in UTF-8) is refused rather than silently cut. */
export const PASSWORD_MAX_BYTES = 72;
/** The one password rule: 8 characters to 72 bytes of UTF-8. */
export const PasswordSchema = z.string().min(8).superRefine((v, ctx) => {
  if (Buffer.byteLength(v, 'utf8') > PASSWORD_MAX_BYTES) {
    ctx.addIssue({ code: 'too_big', origin: 'string', maximum: PASSWORD_MAX_BYTES, inclusive: true, input: v, message: `may hold at most ${PASSWORD_MAX_BYTES} bytes` });
  }
});
export const NameSchema = z.string().max(200);
export const RoleSchema = z.string().min(1).max(64);

/** Fields no client ever writes on a user. */
export const SYSTEM_FIELDS = [...SERVER_FIELDS, 'passwordHash'];

/** Refuses read-only keys (the one rule, core/read-only.ts: 422 read_only unless repeating the
 *  value of `current`, the user as a GET shows it) and keys the store cannot hold (`$x`, `a.b`:
 *  422 format), all at once; returns the body without the read-only keys. Profile fields
 *  beyond the known ones are stored as given. */
export function writableBody(body: unknown, readOnly: readonly string[], current?: object): unknown {
  if (body === null || typeof body !== 'object') return body; // parseBody reports it
  const errors: FieldError[] = readOnlyErrors(body, readOnly, current);
  for (const key of Object.keys(body)) {
    if (readOnly.includes(key)) continue;
    if (key === '') errors.push({ field: key, reason: 'format', message: 'Field names may not be empty' });
    // The key and the keys inside its value (`meta.$gt`) are named: the store would refuse them
    // with no field to point at.
    else errors.push(...checkKeys({ [key]: (body as Record<string, unknown>)[key] }));
  }
  if (errors.length) throw ApiError.validation(errors);
  return withoutReadOnly(body, readOnly, current);
}

export const CreateUserBody = z.object({
  email: EmailSchema,
  password: PasswordSchema,
  name: NameSchema.optional(),
  role: RoleSchema.optional(),
}).catchall(z.unknown());

export const UpdateUserBody = z.object({
  email: EmailSchema.optional(),
  password: PasswordSchema.optional(),
  name: NameSchema.optional(),
  role: RoleSchema.optional(),
}).catchall(z.unknown());

/** `PUT /users/{id}` that replaces the user (v2): `email` required as on creation; `password`,
 *  which no answer shows, changes only when sent. */
export const ReplaceUserBody = UpdateUserBody.extend({ email: EmailSchema });

/** A workspace's first admin (console workspace creation, the CLI's --admin-email and
 *  --admin-password, startServer's adminEmail / adminPassword): the same email and password
 *  rules as any user. Without a password one is generated. */
export const FirstAdminInput = z.object({
  email: EmailSchema,
  password: PasswordSchema.optional(),
  name: NameSchema.optional(),
});

const BCRYPT_HASH = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;
const Stamp = z.string().refine((v) => !Number.isNaN(Date.parse(v)), { message: 'must be an ISO 8601 date' });

/** A user as an import or a seed gives it: a stored user (with its bcrypt `passwordHash`, as an
 *  export writes it) or a hand-written one with a plain `password` under the API's password
 *  rule, hashed at import. Profile fields beyond the known ones are kept as given. */
export const DumpUser = z.object({
  _id: IdSchema,
  email: EmailSchema,
  passwordHash: z.string().regex(BCRYPT_HASH, 'must be a bcrypt hash').optional(),
  password: PasswordSchema.optional(),
  name: NameSchema.optional(),
  role: RoleSchema.optional(),
  createdAt: Stamp.optional(),
  updatedAt: Stamp.optional(),
}).catchall(z.unknown()).superRefine((u, ctx) => {
  if (u.passwordHash === undefined && u.password === undefined) {
    ctx.addIssue({ code: 'invalid_type', expected: 'string', path: ['password'], input: undefined, message: 'is required (or a bcrypt passwordHash)' });
  }
});

/** List parameters may not touch the hash: filtering or sorting on it would be an oracle. */
export const HIDDEN_FIELDS = ['passwordHash'];
