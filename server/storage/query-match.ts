// Matching: a query's conditions compiled into one test of a document, with the comparison
// rules both drivers share (a number compares with numbers and with strings that read as
// numbers; `kind: date` compares instants).
import model from '@seald-io/nedb/lib/model.js';
import type { Condition, Doc } from '../shared/query.js';
import { numericString, parseIsoDate } from '../shared/query.js';
import { getPath } from './doc-path.js';

const compareThings = model.compareThings;

export function isObjectLike(v: unknown) { return v !== null && typeof v === 'object'; }


export function compileMatcher(conditions: Condition[], or?: Condition[][][]): (doc: Doc) => boolean {
  if (or?.length) {
    // Every group must hold; a group holds when one of its branches (all its conditions) does.
    const all = compileMatcher(conditions);
    const groups = or.map((branches) => branches.map((branch) => compileMatcher(branch)));
    return (doc) => all(doc) && groups.every((branches) => branches.some((b) => b(doc)));
  }
  if (conditions.length === 0) return () => true;
  const tests = conditions.map(compileCondition);
  if (tests.length === 1) return tests[0];
  return (doc) => { for (const t of tests) if (!t(doc)) return false; return true; };
}

function compileCondition(c: Condition): (doc: Doc) => boolean {
  const { path, values } = c;
  const get = (doc: Doc) => getPath(doc, path);
  switch (c.op) {
    case '$eq': case '$in': {
      // The common case, one primitive on a plain field: compare inline, fall back for arrays/objects.
      if (values.length === 1 && !isObjectLike(values[0]) && path.indexOf('.') === -1) {
        const want = values[0];
        return (d) => { const v = d[path]; return v === want || (isObjectLike(v) && equalsAny(v, values)); };
      }
      // A long list of primitives: one Set lookup instead of a comparison per value.
      if (values.length > 4 && !values.some(isObjectLike)) { const set = new Set(values); return (d) => inSet(get(d), set, values); }
      return (d) => equalsAny(get(d), values);
    }
    case '$ne': case '$nin': {
      if (values.length > 4 && !values.some(isObjectLike)) { const set = new Set(values); return (d) => !inSet(get(d), set, values); }
      return (d) => !equalsAny(get(d), values);
    }
    case '$exists': { const want = values[0] !== false; return (d) => (get(d) !== undefined) === want; }
    case '$gt': case '$gte': case '$lt': case '$lte': {
      const ok = c.op === '$gt' ? (r: number) => r > 0 : c.op === '$gte' ? (r: number) => r >= 0 : c.op === '$lt' ? (r: number) => r < 0 : (r: number) => r <= 0;
      const slow = (d: Doc) => comparesAny(get(d), values, ok, c.kind);
      // One number on a plain field: a number value is compared inline (a number read there is
      // the document's own: Object.prototype holds none); anything else goes the general way.
      if (!c.kind && values.length === 1 && typeof values[0] === 'number' && path.indexOf('.') === -1) {
        const a = values[0];
        switch (c.op) {
          case '$gt': return (d) => { const v = d[path]; return typeof v === 'number' ? v > a : slow(d); };
          case '$gte': return (d) => { const v = d[path]; return typeof v === 'number' ? v >= a : slow(d); };
          case '$lt': return (d) => { const v = d[path]; return typeof v === 'number' ? v < a : slow(d); };
          default: return (d) => { const v = d[path]; return typeof v === 'number' ? v <= a : slow(d); };
        }
      }
      return slow;
    }
    case '$contains': {
      const needles = values.map((v) => String(v).toLowerCase());
      return (d) => {
        const v = get(d);
        if (typeof v === 'string') { const s = v.toLowerCase(); return needles.some((n) => s.includes(n)); }
        if (Array.isArray(v)) return v.some((e) => equalsAny(e, values));
        return false;
      };
    }
    case '$startsWith': {
      const prefixes = values.map((v) => String(v).toLowerCase());
      return (d) => { const v = get(d); return typeof v === 'string' && prefixes.some((p) => v.toLowerCase().startsWith(p)); };
    }
  }
}

/** equalsAny when every alternative is a primitive (held in `set`): a primitive equals one when
 *  the set has it (the values never hold NaN), an array when an element does (its JSON text
 *  never equals a primitive's); other objects are compared as equalsAny does. */
function inSet(v: unknown, set: Set<unknown>, alternatives: unknown[]): boolean {
  if (!isObjectLike(v)) return set.has(v);
  if (Array.isArray(v)) return v.some((e) => inSet(e, set, alternatives));
  return equalsAny(v, alternatives);
}

function equalsAny(v: unknown, alternatives: unknown[]): boolean {
  if (Array.isArray(v)) return v.some((e) => equalsAny(e, alternatives)) || alternatives.some((a) => deepEqual(v, a));
  for (const a of alternatives) if (v === a || (isObjectLike(v) && deepEqual(v, a))) return true;
  return false;
}

/** Range comparisons only compare values of the same kind: number with number (a string that
 *  reads as a number, `"25"`, counts as that number, never as text: "25" is not >= 100), string
 *  with string, and for `kind: 'date'` the instants of ISO date strings. */
function comparesAny(v: unknown, alternatives: unknown[], ok: (r: number) => boolean, kind?: 'date'): boolean {
  if (Array.isArray(v)) return v.some((e) => comparesAny(e, alternatives, ok, kind));
  if (v === undefined || v === null) return false;
  if (kind === 'date') {
    const t = typeof v === 'string' ? parseIsoDate(v) : undefined;
    if (t === undefined) return false;
    for (const a of alternatives) if (typeof a === 'number' && ok(t - a)) return true;
    return false;
  }
  for (const a of alternatives) {
    if (a === null) continue;
    if (typeof a === typeof v) {
      if (ok(compareThings(v, a))) return true;
    } else if (typeof a === 'number' && typeof v === 'string') {
      const n = numericString(v);
      if (n !== undefined && ok(n - a)) return true;
    }
  }
  return false;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
