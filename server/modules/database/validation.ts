// Record validation: key names the store can hold, read-only keys, and values against the
// collection's field definitions (the reasons of docs/errors.md).
import type { FieldError, ValidationReason } from '../../shared/error-codes.js';
import type { FieldDef } from '../../shared/models.js';
import { parseIsoDate } from '../../storage/query.js';
import { isEmail } from '../users/index.js';
import { fieldRuleError } from '../../core/validation-messages.js';

/** Keys the server owns on every record. */
export const SYSTEM_KEYS = ['_id', '_owner', 'createdAt', 'updatedAt'] as const;

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** The reason a value breaks its field definition, or null. `null` itself is checked by the caller. */
export function checkValue(field: FieldDef, v: unknown): ValidationReason | null {
  const o = field.options ?? {};
  switch (field.type) {
    case 'string': return typeof v !== 'string' ? 'type' : checkLength(v.length, o);
    case 'email': return typeof v !== 'string' ? 'type' : !isEmail(v) ? 'format' : checkLength(v.length, o);
    case 'url': return typeof v !== 'string' ? 'type' : !SCHEME.test(v) || !URL.canParse(v) ? 'format' : checkLength(v.length, o);
    // The form, and a date and time that exist (`2024-02-30`, `T25:00` are not rolled over).
    case 'date': return typeof v !== 'string' ? 'type' : parseIsoDate(v) === undefined ? 'format' : null;
    case 'number': return typeof v !== 'number' || !Number.isFinite(v) ? 'type' : checkRange(v, o);
    case 'integer': return !Number.isInteger(v) ? 'type' : checkRange(v as number, o);
    case 'boolean': return typeof v !== 'boolean' ? 'type' : null;
    case 'enum': return (o.values ?? []).some((x) => x === v) ? null : 'enum';
    case 'json': return null;
    case 'array': return !Array.isArray(v) ? 'type' : checkLength(v.length, o);
    case 'reference': case 'file': case 'user':
      return typeof v !== 'string' ? 'type' : v.length === 0 || v.length > 200 ? 'format' : null;
  }
}

function checkLength(n: number, o: NonNullable<FieldDef['options']>): ValidationReason | null {
  if (typeof o.minLength === 'number' && n < o.minLength) return 'too_short';
  if (typeof o.maxLength === 'number' && n > o.maxLength) return 'too_long';
  return null;
}

function checkRange(n: number, o: NonNullable<FieldDef['options']>): ValidationReason | null {
  if (typeof o.min === 'number' && n < o.min) return 'invalid';
  if (typeof o.max === 'number' && n > o.max) return 'invalid';
  return null;
}

/** The field error for a value that breaks its field definition (worded in validation-messages.ts). */
export const fieldError = fieldRuleError;

/** Checks the given values against the schema. On create, absent fields get their default and
 *  required ones must be there; on update only the given fields are checked (a required field
 *  may not be cleared with null or ''). Returns the data with defaults applied, and the errors. */
export function validateData(fields: FieldDef[], data: Record<string, unknown>, mode: 'create' | 'update'): { data: Record<string, unknown>; errors: FieldError[] } {
  const errors: FieldError[] = [];
  let out = data;
  for (const f of fields) {
    // Own keys only: a field named `constructor` or `toString` is otherwise "given" by Object.prototype.
    let v = Object.hasOwn(out, f._id) ? out[f._id] : undefined;
    if (v === undefined && mode === 'create' && f.default !== undefined) {
      v = structuredClone(f.default);
      out = out === data ? { ...data } : out;
      out[f._id] = v;
    }
    if (v === undefined) { if (mode === 'create' && f.required) errors.push(fieldError(f, 'required')); continue; }
    if (v === null || (v === '' && f.required)) { if (f.required) errors.push(fieldError(f, 'required', v)); continue; }
    const reason = checkValue(f, v);
    if (reason) errors.push(fieldError(f, reason, v));
  }
  return { data: out, errors };
}
