// A field's rule checked in the browser before a value is sent (the grid's in-place edit): the
// same rules the server applies (required, type, range, length, allowed values, email and URL
// form), worded for the cell. The server still decides: its 422 is shown after saving.
import type { FieldDef } from '../../../server/shared/models';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** What is wrong with `value` for `field`, or null. `null` means "clear the value". */
export function ruleError(field: FieldDef, value: unknown): string | null {
  const name = `'${field.name || field._id}'`;
  if (value === null || value === undefined || value === '') return field.required ? `${name} is required` : null;
  const o = field.options ?? {};
  const length = (n: number): string | null => {
    if (typeof o.minLength === 'number' && n < o.minLength) return `${name} must be at least ${o.minLength} characters`;
    if (typeof o.maxLength === 'number' && n > o.maxLength) return `${name} must be at most ${o.maxLength} characters`;
    return null;
  };
  const range = (n: number, what: string): string | null => {
    const lo = typeof o.min === 'number' ? o.min : undefined;
    const hi = typeof o.max === 'number' ? o.max : undefined;
    if ((lo !== undefined && n < lo) || (hi !== undefined && n > hi)) {
      return lo !== undefined && hi !== undefined ? `${name} must be ${what} from ${lo} to ${hi}` : lo !== undefined ? `${name} must be ${what} of at least ${lo}` : `${name} must be ${what} of at most ${hi}`;
    }
    return null;
  };
  switch (field.type) {
    case 'string': return typeof value !== 'string' ? `${name} must be text` : length(value.length);
    case 'email': return typeof value !== 'string' || !EMAIL.test(value) ? `${name} must be an email address` : length(value.length);
    case 'url': {
      let ok = typeof value === 'string' && SCHEME.test(value);
      try { if (ok) new URL(value as string); } catch { ok = false; }
      return ok ? length((value as string).length) : `${name} must be an absolute URL (https://...)`;
    }
    case 'number': return typeof value !== 'number' || !Number.isFinite(value) ? `${name} must be a number` : range(value, 'a number');
    case 'integer': return !Number.isInteger(value) ? `${name} must be an integer` : range(value as number, 'an integer');
    case 'boolean': return typeof value !== 'boolean' ? `${name} must be true or false` : null;
    case 'date': return typeof value !== 'string' || Number.isNaN(Date.parse(value)) ? `${name} must be a date` : null;
    case 'enum': return (o.values ?? []).some((x) => x === value) ? null : `${name} must be one of ${(o.values ?? []).map(String).join(', ')}`;
    default: return null;
  }
}
