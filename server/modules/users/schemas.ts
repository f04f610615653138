// Request bodies of the users API and the user fields the auth API shares with it: email,
// password (8 to 72 bytes: bcrypt ignores anything longer), name, role, and free profile fields.
import { z } from 'zod';
import { ApiError } from '../../core/errors.js';
import type { FieldError } from '../../shared/error-codes.js';
import { checkKeys } from '../../core/keys.js';

export const EmailSchema = z.email().max(254);
export const PasswordSchema = z.string().min(8).max(72);
export const NameSchema = z.string().max(200);
export const RoleSchema = z.string().min(1).max(64);

/** Fields no client ever writes on a user. */
export const SYSTEM_FIELDS = ['_id', 'passwordHash', 'createdAt', 'updatedAt'];

/** Refuses read-only keys (422 read_only) and keys the store cannot hold (`$x`, `a.b`: 422 format),
 *  all at once. Profile fields beyond the known ones are stored as given. */
export function assertWritable(body: unknown, readOnly: readonly string[]): void {
  if (body === null || typeof body !== 'object') return; // parseBody reports it
  const errors: FieldError[] = [];
  for (const key of Object.keys(body)) {
    if (readOnly.includes(key)) errors.push({ field: key, reason: 'read_only', message: `'${key}' is read-only` });
    else if (key.startsWith('$') || key.includes('.') || key === '') errors.push({ field: key, reason: 'format', message: 'Field names may not be empty, start with $ or contain a dot' });
    // Keys inside a profile field's value (`meta.$gt`) are named too: the store would refuse
    // them with no field to point at.
    else errors.push(...checkKeys({ [key]: (body as Record<string, unknown>)[key] }));
  }
  if (errors.length) throw ApiError.validation(errors);
}

/** bcrypt reads at most 72 bytes: a longer password (in UTF-8) is refused rather than silently cut. */
export function assertPasswordBytes(field: string, password: string | undefined): void {
  if (password !== undefined && Buffer.byteLength(password, 'utf8') > 72) {
    throw ApiError.invalidField(field, 'too_long', `'${field}' may hold at most 72 bytes`);
  }
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

/** List parameters may not touch the hash: filtering or sorting on it would be an oracle. */
export const HIDDEN_FIELDS = ['passwordHash'];
