// Request-body validation with zod, reported as the contract's VALIDATION_ERROR.
import type { z } from 'zod';
import { ApiError } from './errors.js';
import type { FieldError, ValidationReason } from '../shared/error-codes.js';

/** Parses `body` with `schema`; a failure is a 422 naming each field and its reason. `at`
 *  roots the field names at a part of a larger body (`admin` → `admin.password`). */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, at?: string): z.infer<S> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const errors: FieldError[] = result.error.issues.map((issue) => {
    const own = issue.path.map(String).join('.') || (issue.code === 'unrecognized_keys' ? issue.keys.join(',') : '');
    const field = at ? (own ? `${at}.${own}` : at) : own;
    return { field, reason: reasonOf(issue, body), message: field ? `'${field}': ${issue.message}` : issue.message };
  });
  throw ApiError.validation(errors);
}

function reasonOf(issue: z.core.$ZodIssue, body: unknown): ValidationReason {
  // A missing key is `required` whatever the schema of its value (enum, union...).
  if (issue.path.length && issue.code !== 'unrecognized_keys' && valueAt(body, issue.path) === undefined) return 'required';
  switch (issue.code) {
    case 'invalid_type': return valueAt(body, issue.path) === undefined ? 'required' : 'type';
    case 'too_small': return issue.origin === 'string' || issue.origin === 'array' ? 'too_short' : 'invalid';
    case 'too_big': return issue.origin === 'string' || issue.origin === 'array' ? 'too_long' : 'invalid';
    case 'invalid_value': return 'enum';
    case 'invalid_format': return 'format';
    case 'unrecognized_keys': return 'invalid';
    // A refinement may name its contract reason: `params: { reason: 'read_only' }`.
    case 'custom': return (issue.params?.reason as ValidationReason | undefined) ?? 'invalid';
    default: return 'invalid';
  }
}

function valueAt(body: unknown, path: PropertyKey[]): unknown {
  let v: unknown = body;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}
