// Text that not every storage engine can hold: the NUL character (U+0000) and lone UTF-16
// surrogates (a high surrogate without its low half, or the reverse). PostgreSQL's jsonb refuses
// both, the embedded stores would keep them; so that a workspace behaves the same on either
// driver, a request body holding such text, as a value or as a key, anywhere, is refused with
// 422 VALIDATION_ERROR (`reason: invalid`, naming each field), and a list query holding it with
// 400 BAD_REQUEST, before anything is stored or looked up.
import { ApiError } from './errors.js';
import type { FieldError } from '../shared/error-codes.js';

const BAD_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** In JSON text such characters can only be written as escapes (a raw NUL byte is not valid JSON,
 *  and UTF-8 cannot encode a surrogate): a body without `\u0000` or `\uD8..`-`\uDF..` needs no walk. */
const BAD_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;
/** Fields named in one answer at most. */
const MAX_NAMED = 20;

export function isUnstorableText(s: string): boolean {
  return BAD_TEXT.test(s);
}

/** Could the JSON text `raw` hold unstorable text? (Cheap, never a false "no".) */
export function mayHoldUnstorableText(raw: string | Buffer): boolean {
  if (raw.indexOf('\\u') === -1) return false;
  return BAD_ESCAPE.test(typeof raw === 'string' ? raw : raw.toString('latin1'));
}

/** A key as it is named in an error: the bad characters written as `\uXXXX`. */
function printable(key: string): string {
  return key.replace(/[\u0000\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The fields of `value` (paths like `meta.title`, `tags[2]`) whose key or text value is unstorable. */
export function unstorableFields(value: unknown, max = MAX_NAMED): string[] {
  const out: string[] = [];
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0 && out.length < max) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (isUnstorableText(v)) out.push(path || '(body)');
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}[${i}]`]);
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      const child = path ? `${path}.${printable(key)}` : printable(key);
      if (isUnstorableText(key)) { out.push(child); continue; }
      stack.push([(v as Record<string, unknown>)[key], child]);
    }
  }
  return out;
}

/** The 422 for a body holding unstorable text, or undefined. */
export function unstorableTextError(body: unknown): ApiError | undefined {
  const fields = unstorableFields(body);
  if (fields.length === 0) return undefined;
  const errors: FieldError[] = fields.map((field) => ({
    field, reason: 'invalid',
    message: `'${field}' holds the NUL character (\\u0000) or a lone UTF-16 surrogate, which cannot be stored`,
  }));
  return ApiError.validation(errors);
}

/** Throws a 400 naming the first list parameter (name or value) that holds unstorable text:
 *  nothing stored can hold it, and PostgreSQL cannot even compare with it. */
export function assertStorableQuery(query: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(query)) {
    const bad = isUnstorableText(key) || unstorableFields(value, 1).length > 0;
    if (bad) throw ApiError.badRequest(`The query parameter '${printable(key)}' holds the NUL character (\\u0000) or a lone UTF-16 surrogate, which no stored value can hold`, { parameter: printable(key) });
  }
}
