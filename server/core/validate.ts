// Request-body validation with zod, reported as the contract's VALIDATION_ERROR. The words of
// every message come from validation-messages.ts.
import type { z } from 'zod';
import { ApiError } from './errors.js';
import { zodFieldErrors } from './validation-messages.js';

/** Parses `body` with `schema`; a failure is a 422 naming each field, its rule and reason.
 *  `at` roots the field names at a part of a larger body (`admin` → `admin.password`). */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, at?: string): z.infer<S> {
  const input = body ?? {};
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw ApiError.validation(zodFieldErrors(result.error, input, at ?? ''));
}
