// The one place that words validation problems. Every 422 message the server writes comes from
// here: zod issues (request bodies, dumps, scenario steps) through the error map installed below
// and `zodFieldErrors`, and record values against a collection's field definitions through
// `fieldRuleError`. Messages are plain words of our own, one per problem, naming the field, the
// rule and the allowed values or range: `'setting.read' is required: one of 'public', 'private',
// 'only-user'`, never a library's "Invalid input: expected string, received undefined".
import { z } from 'zod';
import type { FieldDef } from '../shared/models.js';
import type { FieldError, ValidationReason } from '../shared/error-codes.js';

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;

/** How a value is described: "a string", "an integer", "true or false"... */
const TYPE_WORDS: Record<string, string> = {
  string: 'a string', number: 'a number', int: 'an integer', integer: 'an integer', bigint: 'an integer', boolean: 'true or false',
  object: 'an object', array: 'a list (JSON array)', null: 'null', date: 'a date', record: 'an object', map: 'an object',
  set: 'a list (JSON array)', tuple: 'a list (JSON array)', literal: 'a fixed value', nan: 'a number',
};

/** The kind of a given JSON value, for "(got ...)". Never the value itself: it may be a
 *  password or a secret's value, and messages are shown and logged. */
export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'number') return Number.isInteger(v) ? 'a whole number' : 'a number';
  if (typeof v === 'string') return v === '' ? 'an empty string' : 'a string';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'object') return 'an object';
  return typeof v;
}

const quote = (v: unknown) => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v));
export const oneOf = (values: readonly unknown[]) => (values.length === 1 ? quote(values[0]) : `one of ${values.map(quote).join(', ')}`);
const plural = (n: number | bigint, one: string, many = `${one}s`) => `${n} ${Number(n) === 1 ? one : many}`;

function sizeRule(origin: string, bound: number | bigint, inclusive: boolean | undefined, side: 'min' | 'max', exact?: boolean): string {
  const n = Number(bound);
  const unit = origin === 'string' ? 'character' : origin === 'array' || origin === 'set' ? 'item' : origin === 'file' ? 'byte' : undefined;
  if (unit) {
    if (exact) return `must have exactly ${plural(n, unit)}`;
    if (side === 'min' && n <= 1 && inclusive !== false) return origin === 'string' ? 'must not be empty' : `must list at least 1 ${unit}`;
    const limit = inclusive === false ? (side === 'min' ? n + 1 : n - 1) : n;
    return side === 'min' ? `must have at least ${plural(limit, unit)}` : `must have at most ${plural(limit, unit)}`;
  }
  if (side === 'min') return inclusive === false ? `must be greater than ${n}` : `must be at least ${n}`;
  return inclusive === false ? `must be less than ${n}` : `must be at most ${n}`;
}

const FORMAT_WORDS: Record<string, string> = {
  email: 'must be an email address', url: 'must be a URL such as https://example.com/path', uuid: 'must be a UUID',
  datetime: 'must be an ISO 8601 date and time (2024-05-01T10:00:00Z)', date: 'must be a date (2024-05-01)', time: 'must be a time (10:00:00)',
  ipv4: 'must be an IPv4 address', ipv6: 'must be an IPv6 address', base64: 'must be base64 text', base64url: 'must be base64url text',
};

/** The rule an issue breaks, as a predicate: "is required", "must be a string (got the number 3)". */
function predicate(iss: RawIssue | Issue): string {
  const input = (iss as { input?: unknown }).input;
  switch (iss.code) {
    case 'invalid_type':
      if (input === undefined) return `is required: ${TYPE_WORDS[iss.expected] ?? iss.expected}`;
      return `must be ${TYPE_WORDS[iss.expected] ?? iss.expected} (got ${describeValue(input)})`;
    case 'invalid_value':
      if (input === undefined) return `is required: ${oneOf(iss.values)}`;
      return `must be ${oneOf(iss.values)}`;
    case 'too_small': return sizeRule(iss.origin, iss.minimum as number, iss.inclusive, 'min', iss.exact);
    case 'too_big': return sizeRule(iss.origin, iss.maximum as number, iss.inclusive, 'max', iss.exact);
    case 'invalid_format':
      if (iss.format === 'regex' && 'pattern' in iss && iss.pattern) return `must match ${String(iss.pattern)}`;
      if (iss.format === 'starts_with' || iss.format === 'ends_with' || iss.format === 'includes') return `must be text that ${iss.format.replace('_', ' ')} the given part`;
      return FORMAT_WORDS[iss.format] ?? `must be in ${iss.format} format`;
    case 'not_multiple_of': return `must be a multiple of ${String(iss.divisor)}`;
    case 'unrecognized_keys': return `has unknown field${iss.keys.length > 1 ? 's' : ''} ${iss.keys.map(quote).join(', ')}`;
    case 'invalid_key': return 'has a key that is not allowed';
    case 'invalid_element': return 'holds a value that is not allowed';
    case 'invalid_union': return unionPredicate(iss.errors, input);
    default: return 'is not valid';
  }
}

/** A union (`["a","b"]` or `"a,b"`): when every alternative refused the type, name them all. */
function unionPredicate(branches: Issue[][], input: unknown): string {
  const types = branches.map((b) => (b.length === 1 && b[0].code === 'invalid_type' && b[0].path.length === 0 ? b[0].expected : undefined));
  if (branches.length > 0 && types.every((t) => t !== undefined)) {
    const words = [...new Set(types.map((t) => TYPE_WORDS[t!] ?? t!))];
    return input === undefined ? `is required: ${words.join(' or ')}` : `must be ${words.join(' or ')} (got ${describeValue(input)})`;
  }
  // The alternative the value was closest to (right type, wrong content) tells what to fix.
  const closest = branches.find((b) => !b.some((i) => i.code === 'invalid_type' && i.path.length === 0)) ?? branches[0];
  const inner = closest?.[0];
  if (!inner) return 'is not valid';
  const where = inner.path.length ? ` at ${inner.path.map(String).join('.')}` : '';
  return `${inner.message}${where}`;
}

// Installed once for every zod schema of the server: a schema that gives its own message (a
// refine, a regex's "must match ...") keeps it; everything else gets the predicate above.
z.config({ customError: (iss) => predicate(iss) });

/** The reason of an issue as a 422 reports it (`required`, `type`, `enum`, `format`, `too_short`,
 *  `too_long`, `read_only`, `invalid`); `given` says whether the value was present. */
function reasonOf(issue: Issue, given: boolean): ValidationReason {
  if (!given && issue.code !== 'unrecognized_keys') return 'required';
  switch (issue.code) {
    case 'invalid_type': return 'type';
    case 'too_small': return issue.origin === 'string' || issue.origin === 'array' ? 'too_short' : 'invalid';
    case 'too_big': return issue.origin === 'string' || issue.origin === 'array' ? 'too_long' : 'invalid';
    case 'invalid_value': return 'enum';
    case 'invalid_format': return 'format';
    // A refinement may name its contract reason: `params: { reason: 'read_only' }`.
    case 'custom': return (issue.params?.reason as ValidationReason | undefined) ?? 'invalid';
    case 'invalid_union': return issue.errors.every((b) => b.length === 1 && b[0].code === 'invalid_type' && b[0].path.length === 0) ? 'type' : 'invalid';
    default: return 'invalid';
  }
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let v: unknown = root;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = Object.hasOwn(v, key) ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return v;
}

/** A zod error as field errors, one per problem: the first issue of each field (a URL that is
 *  both malformed and not http(s) is reported once), an unknown key as its own field. `input`
 *  is the value that was parsed; `prefix` roots the paths (`steps.2`). */
export function zodFieldErrors(error: z.ZodError, input: unknown, prefix = ''): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  const join = (parts: PropertyKey[]) => [prefix, ...parts.map(String)].filter((p) => p !== '').join('.');
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = join([...issue.path, key]);
        if (seen.has(field)) continue;
        seen.add(field);
        out.push({ field, reason: 'invalid', message: `'${field}' is not a known field` });
      }
      continue;
    }
    const field = join(issue.path);
    if (seen.has(field)) continue;
    seen.add(field);
    const given = issue.path.length === 0 || valueAt(input, issue.path) !== undefined;
    out.push({ field, reason: reasonOf(issue, given), message: field ? `'${field}' ${issue.message}` : `The body ${issue.message}` });
  }
  return out;
}

/** The top-level message of a 422: every problem, up to three, then a count of the rest. */
export function describeErrors(list: FieldError[]): string {
  if (list.length === 0) return 'The request is not valid';
  const texts = list.slice(0, 3).map((e) => e.message ?? `'${e.field}' ${REASON_WORDS[e.reason]}`);
  const rest = list.length - texts.length;
  return texts.join('; ') + (rest > 0 ? `; and ${plural(rest, 'more problem')}` : '');
}

/** The reason alone, when nothing more is known. */
export const REASON_WORDS: Record<ValidationReason, string> = {
  required: 'is required', type: 'has the wrong type', enum: 'is not one of the allowed values', format: 'is not in the expected format',
  too_short: 'is too short', too_long: 'is too long', read_only: 'cannot be changed', invalid: 'is not valid',
};

// ---- record values against a collection's field definitions ------------------------------

const FIELD_TYPE_WORDS: Record<FieldDef['type'], string> = {
  string: 'a string', number: 'a number', integer: 'an integer', boolean: 'true or false', date: 'an ISO 8601 date (2024-05-01 or 2024-05-01T10:00:00Z)',
  email: 'an email address', url: 'a URL such as https://example.com', enum: 'one of the allowed values', json: 'any JSON value',
  array: 'a list (JSON array)', reference: "a record id of the referenced collection", file: 'a file id', user: 'a user id',
};

/** What a field accepts, with its allowed values or range: "an integer from 0 to 150". */
export function fieldExpects(field: FieldDef): string {
  const o = field.options ?? {};
  if (field.type === 'enum') return oneOf(o.values ?? []);
  let text = FIELD_TYPE_WORDS[field.type];
  if (field.type === 'reference' && typeof o.collection === 'string') text = `a record id of '${o.collection}'`;
  const range = (min: unknown, max: unknown, unit?: string) => {
    const u = unit ? ` ${unit}` : '';
    if (typeof min === 'number' && typeof max === 'number') return ` ${unit ? 'with' : 'from'} ${min} to ${max}${u}`;
    if (typeof min === 'number') return ` ${unit ? 'with' : 'of'} at least ${min}${u}`;
    if (typeof max === 'number') return ` ${unit ? 'with' : 'of'} at most ${max}${u}`;
    return '';
  };
  if (field.type === 'number' || field.type === 'integer') text += range(o.min, o.max);
  if (field.type === 'string' || field.type === 'email' || field.type === 'url') text += range(o.minLength, o.maxLength, 'characters');
  if (field.type === 'array') text += range(o.minLength, o.maxLength, 'items');
  return text;
}

/** The field error for a record value that breaks its field definition. `value` is what was
 *  given (absent for `required`). */
export function fieldRuleError(field: FieldDef, reason: ValidationReason, value?: unknown, at: string = field._id): FieldError {
  const expects = fieldExpects(field);
  let rule: string;
  switch (reason) {
    case 'required': rule = `is required: ${expects}`; break;
    case 'type': rule = `must be ${expects} (got ${describeValue(value)})`; break;
    case 'format':
      rule = field.type === 'reference' || field.type === 'file' || field.type === 'user' ? `must be ${expects}: 1 to 200 characters` : `must be ${expects}`;
      break;
    default: rule = `must be ${expects}`;
  }
  return { field: at, reason, message: `'${at}' ${rule}` };
}
