// The one rule for server-managed fields in a request body, whatever the resource (records,
// users, the profile, channels, messages, collections, fields, views, webhooks, credentials,
// scenarios): each read-only field the body names gets 422 `read_only`, all of them at once;
// but a field that repeats the value the resource already has is ignored, so that a client may
// send back what it read (a PUT of a GET's body). On create there is nothing to repeat: any
// read-only field is refused.
import { isDeepStrictEqual } from 'node:util';
import type { FieldError } from '../shared/error-codes.js';
import { ApiError } from './errors.js';

/** What the server keeps on every stored resource: no client writes them. */
export const SERVER_FIELDS = ['_id', 'createdAt', 'updatedAt'] as const;

/** The read-only fields `body` tries to change: named but absent from `current` (the resource
 *  as a GET shows it; none on create) or different from it. */
export function readOnlyErrors(body: unknown, fields: readonly string[], current?: object): FieldError[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return []; // the body's parser reports it
  const errors: FieldError[] = [];
  for (const field of fields) {
    if (!Object.hasOwn(body, field)) continue;
    const value = (body as Record<string, unknown>)[field];
    if (current && Object.hasOwn(current, field) && isDeepStrictEqual(value, (current as Record<string, unknown>)[field])) continue;
    errors.push({ field, reason: 'read_only', message: `'${field}' is read-only` });
  }
  return errors;
}

/** Throws the 422 of readOnlyErrors, if any. */
export function assertReadOnlyKept(body: unknown, fields: readonly string[], current?: object): void {
  const errors = readOnlyErrors(body, fields, current);
  if (errors.length) throw ApiError.validation(errors);
}

/** Throws the 422 of readOnlyErrors; otherwise returns `body` without the read-only fields (the
 *  ones repeating the current value are dropped), ready for a strict schema. */
export function withoutReadOnly(body: unknown, fields: readonly string[], current?: object): unknown {
  assertReadOnlyKept(body, fields, current);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const rest: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of fields) delete rest[field];
  return rest;
}
