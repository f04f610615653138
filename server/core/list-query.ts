// The one list-query parser: limit, offset, sort, fields and filter[...] from a
// query string, into a StoreQuery the store's planner runs. Express 5's default "simple" query
// parser leaves `filter[age][$gte]` as a flat key, which is parsed here, strictly.
import { ApiError } from './errors.js';
import { isReservedKey } from './keys.js';
import { checkListLimit } from './list-limits.js';
import { FILTER_OPERATORS, numericString, parseIsoDate, type Condition, type FilterOp, type SortKey, type StoreQuery } from '../shared/query.js';
import type { FieldType, ListMeta } from '../shared/models.js';
import { FIELD_PATH as PATH, FILTER_KEY } from '../shared/filter-syntax.js';
import { assertStorableQuery } from './unstorable-text.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

/** Tells the schema type of a field path, when the collection has one. */
export type TypeOf = (path: string) => FieldType | undefined;

export interface ListQueryOptions {
  typeOf?: TypeOf;
  /** Order when the request gives no `sort` (default: createdAt ascending). */
  defaultSort?: SortKey[];
}

type RawQuery = Record<string, unknown>;

/** Where a second face of the API puts its additions to a list query (`or` groups, cursors) on
 *  the raw query object: a symbol, which no query string can hold, so lists asked for without
 *  it parse exactly as before. */
export const LIST_EXTENSION = Symbol('listExtension');

export interface ListExtension {
  /** The query-string keys it reads itself (the parser skips them). */
  owns(key: string): boolean;
  /** Adds to the parsed query. */
  extend(query: RawQuery, q: StoreQuery, options: ListQueryOptions): void;
}

export function parseListQuery(query: RawQuery, options: ListQueryOptions = {}): StoreQuery {
  assertStorableQuery(query);
  const extension = (query as { [LIST_EXTENSION]?: ListExtension })[LIST_EXTENSION];
  const limit = parseLimit(query.limit);
  const offset = parseNonNegative(query.offset, 'offset', 0);
  const sort = query.sort === undefined || query.sort === '' ? (options.defaultSort ?? []) : parseSort(single(query.sort, 'sort'));
  const fields = query.fields === undefined || query.fields === '' ? undefined : parsePaths(single(query.fields, 'fields'), 'fields');
  const conditions: Condition[] = [];
  const entries = Object.entries(query);
  checkListLimit('filters', entries.filter(([key]) => key.startsWith('filter')).length, 'filter');
  for (const [key, raw] of entries) {
    if (!key.startsWith('filter') || extension?.owns(key)) continue;
    const m = FILTER_KEY.exec(key);
    if (!m) throw ApiError.badRequest(`Malformed filter parameter '${key}'; use filter[field]=value or filter[field][$op]=value`);
    const [, path, op = '$eq'] = m;
    assertPath(path, 'filter');
    conditions.push(buildCondition(path, op, single(raw, key), options.typeOf));
  }
  const q: StoreQuery = { conditions, sort, limit, offset, fields };
  if (parseSkipTotal(query.skipTotal)) q.skipTotal = true;
  extension?.extend(query, q, options);
  return q;
}

/** Conditions from a stored object filter (views): `{ role: "admin", age: { "$gte": 25 } }`. */
export function conditionsFromObject(filter: Record<string, unknown>, typeOf?: TypeOf): Condition[] {
  const out: Condition[] = [];
  const entries = Object.entries(filter ?? {});
  const operators = (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).every((k) => k.startsWith('$')) ? Object.keys(v).length : 1);
  checkListLimit('filters', entries.reduce((n, [, v]) => n + operators(v), 0), 'filter');
  for (const [path, value] of entries) {
    assertPath(path, 'filter');
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).every((k) => k.startsWith('$'))) {
      for (const [op, v] of Object.entries(value as Record<string, unknown>)) out.push(buildCondition(path, op, v, typeOf));
    } else {
      out.push(buildCondition(path, '$eq', value, typeOf));
    }
  }
  return out;
}

/** Checks an object filter without running it (views are validated when saved). */
export function validateObjectFilter(filter: unknown, typeOf?: TypeOf): void {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) throw ApiError.invalidField('filter', 'type', "'filter' must be an object");
  conditionsFromObject(filter as Record<string, unknown>, typeOf);
}

export function parseSort(raw: string): SortKey[] {
  const parts = raw.split(',');
  checkListLimit('sortKeys', parts.length, 'sort');
  return parts.map((part) => {
    const p = part.trim();
    const dir = p.startsWith('-') ? -1 : 1;
    const path = p.replace(/^[-+]/, '');
    assertPath(path, 'sort');
    return { path, dir } as SortKey;
  });
}

export function listMeta(total: number, q: Pick<StoreQuery, 'limit' | 'offset' | 'skipTotal'>): ListMeta {
  return { total: q.skipTotal ? SKIPPED_TOTAL : total, limit: q.limit, offset: q.offset };
}

/** `meta.total` of a list asked for with `skipTotal=true`: not counted. */
export const SKIPPED_TOTAL = -1;

/** `skipTotal`: `true` leaves the total uncounted (`meta.total` is -1), `false` or absent counts it. */
function parseSkipTotal(raw: unknown): boolean {
  if (raw === undefined || raw === '') return false;
  const v = single(raw, 'skipTotal');
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw ApiError.badRequest("'skipTotal' must be true or false", { field: 'skipTotal' });
}

export function buildCondition(path: string, op: string, raw: unknown, typeOf?: TypeOf): Condition {
  if (!(FILTER_OPERATORS as readonly string[]).includes(op)) {
    throw ApiError.badRequest(`Unknown filter operator '${op}' on '${path}'; allowed: ${FILTER_OPERATORS.join(' ')}`, { field: path, operator: op });
  }
  const type = typeOf?.(path);
  const fop = op as FilterOp;
  if (typeof raw === 'string' && fop !== '$in' && fop !== '$nin') checkListLimit('valueLength', raw.length, path);
  if (fop === '$exists') return { path, op: fop, values: [parseBool(raw, path)] };
  if (fop === '$in' || fop === '$nin') {
    const items = Array.isArray(raw) ? raw : String(raw).split(',');
    checkListLimit('inValues', items.length, path);
    for (const item of items) if (typeof item === 'string') checkListLimit('valueLength', item.length, path);
    return { path, op: fop, values: items.flatMap((v) => alternatives(v, type, path)) };
  }
  if (RANGE_OPERATORS.has(fop)) return rangeCondition(path, fop, raw, type);
  return { path, op: fop, values: alternatives(raw, type, path) };
}

const RANGE_OPERATORS = new Set<FilterOp>(['$gt', '$gte', '$lt', '$lte']);

/** `$gt $gte $lt $lte`. Unlike equality, a range has one reading: a value that reads as a number
 *  compares as a number only (`$gte=100` must not match the text "25", which sorts after "100");
 *  a value that is an ISO date, on a `date` field or a field without a type, compares as an
 *  instant; otherwise as typed. */
function rangeCondition(path: string, op: FilterOp, raw: unknown, type: FieldType | undefined): Condition {
  if (typeof raw === 'string' && raw !== 'null') {
    if (type === undefined || type === 'json' || type === 'array') {
      const n = numericString(raw);
      if (n !== undefined) return { path, op, values: [n] };
    }
    if (type === undefined || type === 'json' || type === 'array' || type === 'date') {
      const t = parseIsoDate(raw);
      if (t !== undefined) return { path, op, values: [t], kind: 'date' };
    }
  }
  return { path, op, values: alternatives(raw, type, path) };
}

/** The values a filter value may match: coerced by the field's type, or (schemaless) both the
 *  typed reading of `25` / `true` / `null` and the string itself. Typed JSON values (views) are kept. */
function alternatives(raw: unknown, type: FieldType | undefined, path: string): unknown[] {
  if (typeof raw !== 'string') return [raw];
  if (raw === 'null') return type ? [null] : [null, 'null'];
  switch (type) {
    case 'number': case 'integer': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw ApiError.badRequest(`Filter value for '${path}' must be a number`, { field: path });
      return [n];
    }
    case 'boolean': return [parseBool(raw, path)];
    case undefined: case 'json': case 'array': {
      const out: unknown[] = [raw];
      const n = numericString(raw);
      if (n !== undefined) out.unshift(n);
      if (raw === 'true' || raw === 'false') out.unshift(raw === 'true');
      return out;
    }
    default: return [raw];
  }
}

function parseBool(raw: unknown, path: string): boolean {
  if (raw === true || raw === 'true' || raw === '1') return true;
  if (raw === false || raw === 'false' || raw === '0') return false;
  throw ApiError.badRequest(`Filter value for '${path}' must be true or false`, { field: path });
}

function parseLimit(raw: unknown): number {
  const n = parseNonNegative(raw, 'limit', DEFAULT_LIMIT);
  return Math.min(n, MAX_LIMIT);
}

function parseNonNegative(raw: unknown, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const s = single(raw, name);
  if (!/^\d+$/.test(s)) throw ApiError.badRequest(`'${name}' must be a non-negative integer`, { field: name });
  // Any run of digits is an integer: a huge limit is taken as the maximum, a huge offset as past the end.
  return Math.min(Number(s), Number.MAX_SAFE_INTEGER);
}

function parsePaths(raw: string, name: string): string[] {
  const parts = raw.split(',');
  checkListLimit('fields', parts.length, name);
  return parts.map((p) => { const t = p.trim(); assertPath(t, name); return t; });
}

export function assertPath(path: string, name: string) {
  checkListLimit('pathLength', path.length, name);
  checkListLimit('pathDepth', path.split('.').length, name);
  if (!PATH.test(path)) throw ApiError.badRequest(`Invalid field path '${path}' in ${name}`, { field: name });
  // A document without such a field would still "have" it through Object.prototype (`constructor`,
  // `toString`...): filters would match every document and `__proto__` reaches the prototype.
  // Field definitions refuse the same names (isReservedKey), so every field can be used here.
  const reserved = path.split('.').find(isReservedKey);
  if (reserved) throw ApiError.badRequest(`'${reserved}' cannot be used as a field name in ${name}`, { field: name });
}

export function single(raw: unknown, name: string): string {
  if (typeof raw === 'string') return raw;
  throw ApiError.badRequest(`'${name}' must be given once, as a string`, { field: name });
}
