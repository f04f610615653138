// A StoreQuery (query.ts) as SQL over a store table `(id text, doc jsonb)`, with the embedded
// planner's semantics through the hb_* functions of schema.ts. Field paths are written into the
// SQL as literals (they are checked against a strict pattern first) so that a condition or an
// order on an indexed path is the very expression its index was built on; values always travel
// as parameters.
import { DEFAULT_SORT, type Condition, type SortKey, type StoreQuery } from '../query.js';
import { windowKeys } from '../page-window.js';
import { afterPositionSql, orGroupsSql, type PositionTerms } from './window-sql.js';
import { columnsPageSql, columnTerms, sortsByColumns } from './sort-columns.js';

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
  return sortExprsOf(path, pathExpr(path));
}

/** sortExprs over `x`, an expression (or a column) holding the path's value. */
function sortExprsOf(path: string, x: string): string[] {
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

/** Whether a path's value sorts by its bounded keys alone: anything but an array or a string
 *  longer than SORT_PREFIX_CHARS. For such values the order of sortExprs is the order of
 *  (rank, number, string prefix, boolean): the full string equals its prefix, and the array key
 *  is empty. */
export function plainSortSql(path: string): string {
  const x = pathExpr(path);
  return `(hb_rank(${x}) <> 6 AND coalesce(length(hb_str(${x})) <= ${SORT_PREFIX_CHARS}, true))`;
}

/** The complement of plainSortSql, written as PostgreSQL keeps it (a NOT over an AND it would
 *  rewrite, and then no longer match to the `_sx` index's predicate), and as an equality, which
 *  the planner estimates at a handful of rows (an inequality it takes for a third of the table,
 *  and at a million records it then started parallel workers to read an index holding nothing). */
export function extraSortSql(path: string): string {
  const x = pathExpr(path);
  return `((CASE WHEN hb_rank(${x}) = 6 OR length(hb_str(${x})) > ${SORT_PREFIX_CHARS} THEN 1 END) = 1)`;
}

/** The keys of the ordered indexes of a field: its bounded sort keys, then the id. */
function plainKeys(path: string): string[] {
  const e = sortExprs(path);
  return [e[0], e[1], e[2], e[4]];
}

/** The ordered indexes of a user index on one field (`key` without a comma; a compound key has
 *  none), so that a page sorted by the field stops reading after the page: `_sa` holds the
 *  bounded sort keys then the id (an ascending sort reads it forward), `_sd` the same with the id
 *  descending (a descending sort reads it backward, its ties by ascending id, the lists' order),
 *  `_sx` the few values that do not sort by their bounded keys (arrays, strings longer than
 *  SORT_PREFIX_CHARS), sorted apart and merged in (orderedPageSql). The expressions are written
 *  exactly as the page query writes them (PostgreSQL matches an index to an ORDER BY and a
 *  partial index to a WHERE by expression). */
export function orderedIndexesSql(table: string, key: string, ifNotExists = false): string[] {
  if (key.includes(',')) return [];
  const name = indexName(table, key);
  const keys = plainKeys(key).join(', ');
  const ine = ifNotExists ? 'IF NOT EXISTS ' : '';
  return [
    `CREATE INDEX ${ine}${name}_sa ON ${table} (${keys}, id)`,
    `CREATE INDEX ${ine}${name}_sd ON ${table} (${keys}, id DESC)`,
    `CREATE INDEX ${ine}${name}_sx ON ${table} (${sortExprs(key)[0]}) WHERE ${extraSortSql(key)}`,
  ];
}

/** A page of `n` rows ordered by one field that has ordered indexes (orderedIndexesSql): the
 *  first `n` plain values read in order from `_sa` or `_sd` (stopping there, however many rows
 *  tie on the field), every other match (arrays, long strings: usually none) from `_sx`, and the
 *  two merged in the full order. (Asked for in order too, the others would be read from `_sd` by
 *  a planner that cannot tell how few they are.) */
function orderedPageSql(table: string, where: string, key: SortKey, n: number, limit: number, offset: number): string {
  const dir = key.dir === -1 ? ' DESC' : '';
  const plain = plainSortSql(key.path);
  const and = (cond: string) => (where ? `${where} AND ${cond}` : `WHERE ${cond}`);
  const full = orderSql([key]);
  return `SELECT doc FROM (`
    + `(SELECT doc, id FROM ${table} ${and(plain)} ORDER BY ${[...plainKeys(key.path).map((e) => `${e}${dir}`), 'id'].join(', ')} LIMIT ${n})`
    + ` UNION ALL (SELECT doc, id FROM ${table} ${and(extraSortSql(key.path))})`
    + `) AS page ${full} LIMIT ${limit} OFFSET ${offset}`;
}

/** The equality keys of a path (what its GIN index holds). */
export function keysExpr(path: string): string { return `hb_keys(${pathExpr(path)})`; }
/** Whether the equality keys of a path (hb_keys) include one of `vals` (a jsonb[] parameter):
 *  hb_keys(x) && vals, with the array built only for an array value (a scalar's keys are itself). */
function keysMatchSql(path: string, vals: string, arrays = true): string {
  const x = pathExpr(path);
  // Looking for no array, an array value never equals one: the scalar test first, and the type
  // asked only when it fails (a match, the usual case over an index's rows, is one lookup).
  if (!arrays) return `(${x} = ANY(${vals}) OR (jsonb_typeof(${x}) = 'array' AND hb_keys_array(${x}) && ${vals}))`;
  return `(CASE WHEN jsonb_typeof(${x}) = 'array' THEN hb_keys_array(${x}) && ${vals} ELSE ${x} = ANY(${vals}) END)`;
}
/** Their digests, what an index on the path holds. */
export function hashKeysExpr(path: string): string { return `hb_hkeys(${pathExpr(path)})`; }

export class Params {
  readonly values: unknown[] = [];
  add(v: unknown, cast: string): string { this.values.push(v); return `$${this.values.length}::${cast}`; }
}

const json = (v: unknown) => JSON.stringify(v === undefined ? null : v);
const RANGE_SQL: Record<string, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

/** `deferred`, when given, collects the exact tests of equality conditions instead of writing them
 *  into the condition, which then selects candidates by the digest lookup alone (a superset). */
function conditionSql(c: Condition, p: Params, deferred?: string[]): string {
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
      // The recheck (a digest can collide) compares a scalar with `=`, without building arrays:
      // half the cost of checking 25,000 matches.
      const exact = `coalesce(${keysMatchSql(c.path, vals, c.values.some(Array.isArray))}, false)`;
      if (deferred) { deferred.push(exact); return `(${hashKeysExpr(c.path)} && hb_hvals(${vals}))`; }
      return `(${hashKeysExpr(c.path)} && hb_hvals(${vals}) AND ${exact})`;
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

export function whereSql(conditions: Condition[], p: Params, or?: Condition[][][], deferred?: string[]): string {
  const parts = [...conditions.map((c) => conditionSql(c, p, deferred)), ...orGroupsSql(or, p, (c, q) => conditionSql(c, q))];
  return parts.length ? `WHERE ${parts.join(' AND ')}` : '';
}

export function orderSql(sort: SortKey[], valueOf: (path: string, i: number) => string = pathExpr): string {
  const keys = (sort.length ? sort : DEFAULT_SORT).flatMap(({ path, dir }, i) => sortExprsOf(path, valueOf(path, i)).map((e) => `${e}${dir === -1 ? ' DESC' : ''}`));
  return `ORDER BY ${[...keys, 'id'].join(', ')}`;
}

/** A page sorted by fields no index orders (the first sort key has none: no index can give the
 *  order or a prefix of it): every match is sorted, keeping only the best offset + limit (a
 *  top-N heapsort). Each sort field's value and its JSON type are taken from the document once
 *  per row, in subqueries the planner keeps apart (OFFSET 0), and the field sorts by four keys
 *  of that type (rawSortKeys) instead of orderSql's six, each of which asked the type again:
 *  the same order, for about 30 % less of PostgreSQL's CPU at 100,000 records (37 -> 26 ms for
 *  25,000 matches; the same page sorted on a plain jsonb number costs 22). */
function sortedPageSql(table: string, where: string, sort: SortKey[], limit: number, offset: number): string {
  const values = sort.map((k, i) => `${pathExpr(k.path)} AS v${i}`).join(', ');
  const typed = sort.map((_, i) => `v${i}, jsonb_typeof(v${i}) AS t${i}`).join(', ');
  const keys = sort.flatMap((k, i) => rawSortKeys(`v${i}`, `t${i}`).map((e) => `${e}${k.dir === -1 ? ' DESC' : ''}`));
  return `SELECT doc FROM (SELECT doc, id, ${typed} FROM (SELECT doc, id, ${values} FROM ${table} ${where} OFFSET 0) AS r OFFSET 0) AS m`
    + ` ORDER BY ${[...keys, 'id'].join(', ')} LIMIT ${limit} OFFSET ${offset}`;
}

/** The order of sortExprs over value `v` whose JSON type (jsonb_typeof) is `t`: its rank
 *  (hb_rank's), then a number or a boolean as a number (false 0, true 1: a rank holds one type),
 *  then a string whole (in code point order its 200 first characters and then the rest sort as
 *  the whole does), then an array (hb_arr). Within a rank only the type's own key is set. */
function rawSortKeys(v: string, t: string): string[] {
  return [
    `(CASE ${t} WHEN 'null' THEN 1 WHEN 'number' THEN 2 WHEN 'string' THEN 3 WHEN 'boolean' THEN 4 WHEN 'array' THEN 6 WHEN 'object' THEN 7 ELSE 0 END)`,
    `(CASE ${t} WHEN 'number' THEN ${v}::numeric WHEN 'boolean' THEN ${v}::boolean::int END)`,
    `(CASE WHEN ${t} = 'string' THEN (${v} #>> '{}') END) COLLATE "C"`,
    `(CASE WHEN ${t} = 'array' THEN hb_arr(${v}) END)`,
  ];
}

/** Whether an index may give a sort's order, or the order of its first key: the default order
 *  and createdAt (their sort-key index), _id (the primary key), a field with ordered indexes. */
function indexOrdered(sort: SortKey[], ordered?: ReadonlySet<string>): boolean {
  if (!sort.length) return true;
  const first = sort[0].path;
  return first === 'createdAt' || first === '_id' || !!ordered?.has(first);
}

/** A page's statement. `exact`, for a page read from sort columns whose rows answer `ok` (the
 *  exact tests of its equality conditions, put off to the page's rows): the same page with those
 *  tests on every match, to read instead when a row answers `ok` false. */
export interface PageSql { text: string; values: unknown[]; exact?: { text: string; values: unknown[] } }

/** A page read from sort columns. `exactWhere` (with its values) selects the matches with every
 *  test; the page returned puts the exact tests of its equality conditions off to the page's
 *  rows (candidates by digest only), with the exact page beside it to read again when a row fails
 *  one. `seek` adds a keyset position to a WHERE built with the given parameters. */
function columnsPage(table: string, q: StoreQuery, keys: SortKey[], limit: number, offset: number,
  exactWhere: string, exactValues: unknown[], seek: (where: string, p: Params) => string): PageSql {
  const exact = { text: columnsPageSql(table, exactWhere, [], keys, limit, offset), values: exactValues };
  const dp = new Params();
  const rechecks: string[] = [];
  const candidates = whereSql(q.conditions, dp, q.or, rechecks);
  if (!rechecks.length) return exact;
  return { text: columnsPageSql(table, seek(candidates, dp), rechecks, keys, limit, offset), values: dp.values, exact };
}

/** The page query and the count query of a list. `ordered`: the fields with ordered indexes
 *  (orderedIndexesSql), whose one-key sorts read only the page from them. `sortColumns`: the
 *  fields with ready sort columns (sort-columns.ts), which a page sorted on fields no index
 *  orders sorts by when every key has them. */
export function listSql(table: string, q: StoreQuery, ordered?: ReadonlySet<string>, sortColumns?: ReadonlySet<string>): { page?: PageSql; count: { text: string; values: unknown[] } } {
  const one = (keys: SortKey[]) => (keys.length === 1 && ordered?.has(keys[0].path) && keys[0].path !== 'createdAt' && keys[0].path !== '_id' ? keys[0] : undefined);
  const p = new Params();
  const where = whereSql(q.conditions, p, q.or);
  const count = { text: `SELECT count(*)::int AS n FROM ${table} ${where}`, values: p.values };
  if (q.limit === 0) return { count };
  if (q.window) {
    // Keyset paging: limit + 1 rows from the window's position, in the window's order.
    const keys = windowKeys(q.sort.length ? q.sort : DEFAULT_SORT, q.window.backward);
    const wp = new Params();
    wp.values.push(...p.values);
    const [limit, offset] = [Math.floor(q.limit) + 1, Math.floor(q.offset)];
    const key = one(keys);
    const seekAnd = (w: string, sp: Params, terms?: PositionTerms) => {
      if (!q.window?.seek) return w;
      const seek = afterPositionSql(keys, q.window.seek, sp, terms);
      return w ? `${w} AND ${seek}` : `WHERE ${seek}`;
    };
    if (!key && !indexOrdered(keys, ordered) && sortsByColumns(keys, sortColumns)) {
      // From the sort columns, the position tested on them too.
      const page = columnsPage(table, q, keys, limit, offset, seekAnd(where, wp, columnTerms), wp.values, (w, sp) => seekAnd(w, sp, columnTerms));
      return { count, page };
    }
    const filter = seekAnd(where, wp);
    const text = key ? orderedPageSql(table, filter, key, limit + offset, limit, offset) : `SELECT doc FROM ${table} ${filter} ${orderSql(keys)} LIMIT ${limit} OFFSET ${offset}`;
    return { count, page: { text, values: wp.values } };
  }
  const [limit, offset] = [Math.floor(q.limit), Math.floor(q.offset)];
  const key = one(q.sort);
  if (!key && !indexOrdered(q.sort, ordered) && sortsByColumns(q.sort, sortColumns)) {
    return { count, page: columnsPage(table, q, q.sort, limit, offset, where, p.values, (w) => w) };
  }
  const page = {
    text: key ? orderedPageSql(table, where, key, limit + offset, limit, offset)
      : indexOrdered(q.sort, ordered) ? `SELECT doc FROM ${table} ${where} ${orderSql(q.sort)} LIMIT ${limit} OFFSET ${offset}`
        : sortedPageSql(table, where, q.sort, limit, offset),
    values: p.values,
  };
  return { page, count };
}
