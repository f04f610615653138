// Key checks shared by every module that stores client-given objects (records, user data,
// scenario drafts, imports): names the store cannot hold and names that reach Object.prototype.
import type { FieldError } from '../shared/error-codes.js';

/** Deepest nesting of a stored object's keys. */
const MAX_DEPTH = 32;

/** Names a document key may not have to be used as a field (a field definition's key, a path
 *  segment in filters, sorts, fields and indexes): `__proto__`, `constructor`, `toString` and the
 *  other Object.prototype members, and `prototype`. A document lacking such a key still "has" it
 *  through Object.prototype in code (nedb's indexes among it) that does not read own keys only. */
export function isReservedKey(name: string): boolean {
  return name === 'prototype' || name in Object.prototype;
}

const dotted = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** The one rule for the name of a key a client stores (a record's field, a profile field, a key
 *  inside a value, a scenario draft's, an import's): it may not start with `$` (the store's
 *  operators), contain `.` (a path separator) or be `__proto__`. */
export function isStorableKeyName(key: string): boolean {
  return !(key.startsWith('$') || key.includes('.') || key === '__proto__');
}

/** The one wording of that rule, for every refusal of it (the API's and the stores'). */
export function keyNameMessage(key: string): string {
  return `Field name '${key}' may not start with '$', contain '.' or be '__proto__'`;
}

/** Keys nedb cannot store (`$...`, dotted) or that would set a prototype, and nesting deeper
 *  than MAX_DEPTH: 422 `format` / `invalid` naming the key's path. Walks without recursion.
 *  `root` and `join` spell the paths (a dump names keys as JSON paths: `a["b.c"]`). */
export function checkKeys(body: Record<string, unknown>, root = '', join: (path: string, key: string) => string = dotted): FieldError[] {
  const errors: FieldError[] = [];
  const stack: Array<[unknown, string, number]> = [[body, root, 0]];
  while (stack.length && errors.length < 20) {
    const [value, path, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_DEPTH) { errors.push({ field: path, reason: 'invalid', message: `'${path}' is nested more than ${MAX_DEPTH} levels deep` }); continue; }
    const isArray = Array.isArray(value);
    for (const key of Object.keys(value)) {
      const child = isArray ? `${path}[${key}]` : join(path, key);
      if (!isArray && !isStorableKeyName(key)) {
        errors.push({ field: child, reason: 'format', message: keyNameMessage(key) });
        continue;
      }
      stack.push([(value as Record<string, unknown>)[key], child, depth + 1]);
    }
  }
  return errors;
}

