// A StoreQuery (query.ts) as SQL over a store table `(id text, doc jsonb)`, with the embedded
// planner's semantics through the hb_* functions of schema.ts. Field paths are written into the
// SQL as literals (they are checked against a strict pattern first) so that a condition or an
// order on an indexed path is the very expression its index was built on; values always travel
// as parameters.
import { DEFAULT_SORT, type Condition, type SortKey, type StoreQuery } from '../query.js';
import { windowKeys } from '../page-window.js';
import { afterPositionSql, orGroupsSql } from './window-sql.js';

const SEGMENT = /^[A-Za-z0-9_-]+$/;

export function quoteLiteral(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** The SQL value of a dot path in `doc` (SQL NULL when the document lacks it). */
export function pathExpr(path: string): string {
  const parts = path.split('.');
  if (!parts.every((p) => SEGMENT.test(p))) throw new Error(`invalid field path ${JSON.stringify(path)}`);
  if (parts.length === 1) return `(doc -> ${quoteLiteral(path)})`;
  return `hb_path(doc, ${quoteLiteral(`{${parts.join(',')}}`)}::text[])`;
}

/** Characters of a string value that a field's sort index holds: a btree entry is limited to
 *  about 2.7 kB and a record's string is not (at most 4 bytes a character: 800 bytes). */
export const SORT_PREFIX_CHARS = 200;

/** The expressions a path sorts by, in order (nedb's compareThings). Every field but createdAt
 *  sorts strings by their first SORT_PREFIX_CHARS characters first, then by the whole string:
 *  the same order (code point order agrees with its prefixes), and the leading keys are the
 *  bounded ones a user index's sort index holds (sortIndexSql), so that PostgreSQL reads a page
 *  in order from that index and sorts only the rows tied on it (an incremental sort). createdAt
 *  is written by the server (an ISO date): its index (createdIndexSql) holds the whole key. */
export function sortExprs(path: string): string[] {
  const x = pathExpr(path);
  const prefix = path === 'createdAt' ? [] : [`(left(hb_str(${x}), ${SORT_PREFIX_CHARS}) COLLATE "C")`];
  // hb_arr is not inlined (it holds a subquery): called for arrays only.
  return [`hb_rank(${x})`, `hb_num(${x})`, ...prefix, `(hb_str(${x}) COLLATE "C")`, `hb_bool(${x})`, `(CASE WHEN jsonb_typeof(${x}) = 'array' THEN hb_arr(${x}) END)`];
}

/** Index names from the table and a digest of the key (a key may be longer than a name may be). */
export function indexName(table: string, key: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return `${table}_${h.toString(36)}`;
}

/** The sort index of a user index on one field (`key` without a comma; a compound key has
 *  none): a btree on the leading, bounded expressions of sortExprs, written exactly as an ORDER
 *  BY on the field writes them (PostgreSQL matches an index to an ORDER BY by expression). A
 *  backward scan serves a descending sort. */
export function sortIndexSql(table: string, key: string, ifNotExists = false): string | undefined {
  if (key.includes(',')) return undefined;
  return `CREATE INDEX ${ifNotExists ? 'IF NOT EXISTS ' : ''}${indexName(table, key)}_s ON ${table} (${sortExprs(key).slice(0, 3).join(', ')})`;
}

/** The equality keys of a path (what its GIN index holds). */
export function keysExpr(path: string): string { return `hb_keys(${pathExpr(path)})`; }
/** Their digests, what an index on the path holds. */
export function hashKeysExpr(path: string): string { return `hb_hkeys(${pathExpr(path)})`; }

export class Params {
  readonly values: unknown[] = [];
  add(v: unknown, cast: string): string { this.values.push(v); return `$${this.values.length}::${cast}`; }
}

const json = (v: unknown) => JSON.stringify(v === undefined ? null : v);
const RANGE_SQL: Record<string, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

function conditionSql(c: Condition, p: Params): string {
  const x = pathExpr(c.path);
  switch (c.op) {
    case '$eq': case '$in': {
      const vals = p.add(c.values.map(json), 'jsonb[]');
      // hb_hvals of a parameter is computed once while planning (an immutable function of a
      // constant), so the planner estimates the lookup from the GIN index's statistics; the
      // recheck in coalesce is estimated at one half rather than at PostgreSQL's default 0.5 %
      // for an array overlap it has no statistics on (together they made a filter matching a
      // quarter of the rows look like a handful, and a page sorted by an indexed field was
      // planned as "fetch every match, then sort" instead of a scan of the sort index).
      return `(${hashKeysExpr(c.path)} && hb_hvals(${vals}) AND coalesce(${keysExpr(c.path)} && ${vals}, false))`;
    }
    case '$ne': case '$nin': return `(NOT (${keysExpr(c.path)} && ${p.add(c.values.map(json), 'jsonb[]')}))`;
    case '$exists': return `(${x} IS ${c.values[0] === false ? '' : 'NOT '}NULL)`;
    case '$contains':
      return `hb_contains(${x}, ${p.add(c.values.map((v) => String(v).toLowerCase()), 'text[]')}, ${p.add(c.values.map(json), 'jsonb[]')})`;
    case '$startsWith': return `hb_starts(${x}, ${p.add(c.values.map((v) => String(v).toLowerCase()), 'text[]')})`;
    default: return rangeSql(c, x, p);
  }
}

/** $gt $gte $lt $lte. One number or one string (what a query string gives) compares inline; other
 *  cases, arrays and dates go through hb_cmp_any. */
function rangeSql(c: Condition, x: string, p: Params): string {
  const general = () => `hb_cmp_any(${x}, ${quoteLiteral(c.op)}, ${p.add(json(c.values), 'jsonb')}, ${quoteLiteral(c.kind ?? '')})`;
  if (c.kind || c.values.length !== 1) return general();
  const op = RANGE_SQL[c.op];
  const v = c.values[0];
  if (typeof v === 'number') {
    return `(CASE jsonb_typeof(${x}) WHEN 'number' THEN (${x})::numeric ${op} ${p.add(v, 'numeric')}`
      + ` WHEN 'string' THEN coalesce(hb_numstr(${x} #>> '{}') ${op} ${p.add(v, 'float8')}, false)`
      + ` WHEN 'array' THEN ${general()} ELSE false END)`;
  }
  if (typeof v === 'string') {
    return `(CASE jsonb_typeof(${x}) WHEN 'string' THEN (${x} #>> '{}') COLLATE "C" ${op} ${p.add(v, 'text')}`
      + ` WHEN 'array' THEN ${general()} ELSE false END)`;
  }
  return general();
}

export function whereSql(conditions: Condition[], p: Params, or?: Condition[][][]): string {
  const parts = [...conditions.map((c) => conditionSql(c, p)), ...orGroupsSql(or, p, conditionSql)];
  return parts.length ? `WHERE ${parts.join(' AND ')}` : '';
}

export function orderSql(sort: SortKey[]): string {
  const keys = (sort.length ? sort : DEFAULT_SORT).flatMap(({ path, dir }) => sortExprs(path).map((e) => `${e}${dir === -1 ? ' DESC' : ''}`));
  return `ORDER BY ${[...keys, 'id'].join(', ')}`;
}

/** The page query and the count query of a list. */
export function listSql(table: string, q: StoreQuery): { page?: { text: string; values: unknown[] }; count: { text: string; values: unknown[] } } {
  const p = new Params();
  const where = whereSql(q.conditions, p, q.or);
  const count = { text: `SELECT count(*)::int AS n FROM ${table} ${where}`, values: p.values };
  if (q.limit === 0) return { count };
  if (q.window) {
    // Keyset paging: limit + 1 rows from the window's position, in the window's order.
    const keys = windowKeys(q.sort.length ? q.sort : DEFAULT_SORT, q.window.backward);
    const wp = new Params();
    wp.values.push(...p.values);
    const seek = q.window.seek ? afterPositionSql(keys, q.window.seek, wp) : '';
    const filter = seek ? (where ? `${where} AND ${seek}` : `WHERE ${seek}`) : where;
    return { count, page: { text: `SELECT doc FROM ${table} ${filter} ${orderSql(keys)} LIMIT ${Math.floor(q.limit) + 1} OFFSET ${Math.floor(q.offset)}`, values: wp.values } };
  }
  const page = {
    text: `SELECT doc FROM ${table} ${where} ${orderSql(q.sort)} LIMIT ${Math.floor(q.limit)} OFFSET ${Math.floor(q.offset)}`,
    values: p.values,
  };
  return { page, count };
}
