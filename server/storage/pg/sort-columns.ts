// Sort columns: the sort keys of a field that no index orders, kept in plain columns of the store
// table beside the document, so that a page sorted on that field sorts narrow typed values instead
// of reading each match's value out of its jsonb document (see docs/scaling.md, "Pages sorted on
// a field no index orders").
//
// A field gets its columns the first time a page is sorted on it (in the background: that page and
// the next ones are answered the usual way until the columns are ready), at most MAX_SORT_FIELDS
// fields a table. For a field whose columns are named B (sortColumnBase):
//  - B_r smallint: the value's rank in the order of types (hb_rank: missing 0, null 1, number 2,
//    string 3, boolean 4, array 6, object 7);
//  - B_n float8: a number, or a boolean as 0 / 1 (hb_sort_num); every number a record holds came
//    through JavaScript's JSON, so it is a double and float8 orders it exactly;
//  - B_s text COLLATE "C": a string, whole (code point order);
//  - an array's key is not kept: the page computes it from the document for the rows ranked 6.
// They are added without rewriting the table (nullable columns with no default: a change of the
// catalogue, under a lock held for an instant, given up after LOCK_TIMEOUT_MS (doubled at each
// failed try, up to MAX_LOCK_TIMEOUT_MS) rather than queueing every reader behind it), filled for every later write by the trigger `hb_sort_columns` (a
// BEFORE INSERT OR UPDATE OF doc trigger, so every path that writes a row fills them: creates,
// updates, patches, batches, imports, restores), and for the rows already there by batches of
// BACKFILL_BATCH rows. A constraint `B_ok` (CHECK (B_r IS NOT NULL)) is added NOT VALID with the
// columns and validated once the batches are done (a scan that does not block reads or writes):
// then the table is vacuumed (the fill's dead row versions reclaimed, its pages all-visible
// again); a page uses a field's columns only when that constraint is validated, which is known from the
// table's own catalogue, so a table made anew (a snapshot restored by rebuilding it, a workspace
// copied) simply has none until a page asks again. Several processes: the columns are added under
// a transaction-level advisory lock and filled under a session-level one, so one process does it
// and one that died half way is taken over by the next that asks.
import { createHash } from 'node:crypto';
import type { SortKey } from '../query.js';
import { pathExpr, quoteLiteral } from './sql-query.js';

/** Fields a table may keep sort columns for (each costs three columns and a little per write). */
export const MAX_SORT_FIELDS = 8;
/** Rows filled per statement when a field gets its columns. */
export const BACKFILL_BATCH = 5000;
/** How long adding the columns waits for the table's lock before giving up (and trying again at
 *  a later page): a waiting ALTER TABLE holds every later reader and writer behind it, so this is
 *  the longest that requests on the table may stall. The lock is had once the statements running
 *  when it was asked for are over: where they take longer (a page sorting every match of a large
 *  table, under load), each failed try doubles the wait, up to MAX_LOCK_TIMEOUT_MS. */
export const LOCK_TIMEOUT_MS = 200;
export const MAX_LOCK_TIMEOUT_MS = 3200;

/** Hex characters of the path's digest in its column names (128 bits: no two paths are found
 *  to share a name, even on purpose; `hb_o_`, the digest and `_ok` stay within PostgreSQL's 63
 *  bytes a name). */
const DIGEST_CHARS = 32;

/** The prefix of a field's sort column names: `hb_o_` and a digest (sha256) of its path (a path
 *  may be longer than a column name may be). The path itself is the `_r` column's comment, and
 *  the columns serve a field only where that comment is the field's path (sortColumnOwner): the
 *  name alone is never trusted to say whose values the columns hold. */
export function sortColumnBase(path: string): string {
  return `hb_o_${createHash('sha256').update(path, 'utf8').digest('hex').slice(0, DIGEST_CHARS)}`;
}

/** The prefix of the columns a `_r` column's name belongs to. */
export const baseOfColumn = (name: string): string => name.slice(0, -2);

/** A table's sort columns as its catalogue lists them: each `_r` column's prefix, the path its
 *  comment names (null without one) and whether its constraint is validated. */
export interface SortColumnRow { name: string; path: string | null; ready: boolean }

/** Whether the columns of prefix `base`, whose comment names `path`, are `path`'s own: their
 *  name is the digest of the path they say they hold. Columns under a name that is not their
 *  path's digest (another naming, a table edited by hand) serve no field, and no field's columns
 *  are added under a name already taken by another path's. */
export const sortColumnOwner = (base: string, path: string | null): path is string => path !== null && sortColumnBase(path) === base;

/** The sort keys of a field over its columns, in the order of the raw keys (rank, number, string,
 *  array); `_id` sorts by the id column itself (a string, in code point order). */
function columnKeys(path: string, prefix: string): string[] {
  if (path === '_id') return [`${prefix}id`];
  const b = `${prefix}${sortColumnBase(path)}`;
  const arr = pathExpr(path).replace(/\bdoc\b/, `${prefix}doc`);
  return [`${b}_r`, `${b}_n`, `${b}_s`, `(CASE WHEN ${b}_r = 6 THEN hb_arr(${arr}) END)`];
}

/** A page sorted on fields that all have ready sort columns (or `_id`). The matches' sort keys
 *  and row addresses are sorted (narrow rows), and only the page's rows are then read whole by
 *  address (`ctid`, valid within the statement). `where` selects the candidates; `rechecks`
 *  (possibly none) are the exact tests of the equality conditions whose digest lookup `where`
 *  holds: they are evaluated on the page's rows only, each row answering `ok`, and every row of
 *  the sorted candidates (offset included) must pass for the page to stand (otherwise the caller
 *  reads it again with the tests in `where`: a digest collision, which no real value meets). */
export function columnsPageSql(table: string, where: string, rechecks: string[], sort: SortKey[], limit: number, offset: number): string {
  const keys: Array<{ expr: string; dir: string }> = [];
  for (const k of sort) for (const e of columnKeys(k.path, '')) keys.push({ expr: e, dir: k.dir === -1 ? ' DESC' : '' });
  const inner = keys.map((k, i) => `${k.expr} AS k${i}`).join(', ');
  const order = (pre: string) => [...keys.map((k, i) => `${pre}k${i}${k.dir}`), `${pre}id`].join(', ');
  const innerOrder = [...keys.map((k) => `${k.expr}${k.dir}`), 'id'].join(', ');
  const ok = rechecks.length ? rechecks.join(' AND ') : 'true';
  return `SELECT doc, bool_and(ok) OVER () AS ok FROM (`
    + `SELECT k.*, p.doc, ${ok} AS ok FROM (`
    + `SELECT ctid AS c, id, ${inner} FROM ${table} ${where} ORDER BY ${innerOrder} LIMIT ${limit + offset}`
    // Each page row fetched by its address (a lateral subquery the planner keeps apart, OFFSET 0:
    // as a plain join it may hash the page's rows and scan the whole table instead).
    + `) AS k CROSS JOIN LATERAL (SELECT doc FROM ${table} WHERE ctid = k.c OFFSET 0) AS p) AS m ORDER BY ${order('')} OFFSET ${offset}`;
}

/** The terms of a keyset position test (window-sql.ts afterPositionSql) over a field's sort
 *  columns: each column, and the same key computed from the position's value. */
export function columnTerms(path: string, pivotX: string): Array<{ row: string; pivot: string }> {
  const row = columnKeys(path, '');
  if (path === '_id') return [{ row: row[0], pivot: `(${pivotX} #>> '{}') COLLATE "C"` }];
  const pivot = [`hb_rank(${pivotX})`, `hb_sort_num(${pivotX})`, `(hb_str(${pivotX}) COLLATE "C")`,
    `(CASE WHEN jsonb_typeof(${pivotX}) = 'array' THEN hb_arr(${pivotX}) END)`];
  return row.map((r, i) => ({ row: r, pivot: pivot[i] }));
}

/** Whether a sort can be answered from sort columns: every key's field has ready ones (or is `_id`). */
export function sortsByColumns(sort: SortKey[], ready: ReadonlySet<string> | undefined): boolean {
  return !!ready && sort.length > 0 && sort.every((k) => k.path === '_id' || ready.has(k.path));
}

/** A table's sort columns as its catalogue says (SortColumnRow): each `_r` column's name, the
 *  path its comment holds, whether its constraint is validated (the columns filled for every
 *  row). */
export const SORT_COLUMNS_STATE_SQL = `
  SELECT a.attname AS name, col_description(a.attrelid, a.attnum) AS path, coalesce(c.convalidated, false) AS ready
  FROM pg_attribute a
  LEFT JOIN pg_constraint c ON c.conrelid = a.attrelid AND c.conname = left(a.attname, length(a.attname) - 2) || '_ok'
  WHERE a.attrelid = to_regclass($1) AND a.attname LIKE 'hb\\_o\\_%\\_r' AND NOT a.attisdropped`;

/** The statements (one transaction, after the table's advisory lock) that give `path` its sort
 *  columns, given the columns the table has already (each prefix and the path its comment holds),
 *  and set the trigger that fills them all: every column with a constraint must be filled on
 *  every write, whether or not it serves a field. */
export function addSortColumnsSql(table: string, path: string, existing: Array<{ base: string; path: string }>, lockTimeoutMs = LOCK_TIMEOUT_MS): string[] {
  pathExpr(path); // refuses a path that is not one
  const b = sortColumnBase(path);
  if (existing.some((e) => e.base === b)) throw new Error(`sort columns ${b} exist already`);
  const fields = [...existing, { base: b, path }];
  const args = fields.flatMap((f) => [quoteLiteral(f.path), quoteLiteral(f.base)]).join(', ');
  return [
    `SET LOCAL lock_timeout = '${Math.round(lockTimeoutMs)}ms'`,
    `ALTER TABLE ${table} ADD COLUMN ${b}_r smallint, ADD COLUMN ${b}_n float8, ADD COLUMN ${b}_s text COLLATE "C"`,
    `ALTER TABLE ${table} ADD CONSTRAINT ${b}_ok CHECK (${b}_r IS NOT NULL) NOT VALID`,
    `COMMENT ON COLUMN ${table}.${b}_r IS ${quoteLiteral(path)}`,
    `DROP TRIGGER IF EXISTS hb_sort_columns ON ${table}`,
    `CREATE TRIGGER hb_sort_columns BEFORE INSERT OR UPDATE OF doc ON ${table} FOR EACH ROW EXECUTE FUNCTION hb_sort_columns(${args})`,
  ];
}

/** One batch of the fill of `path`'s columns: the next BACKFILL_BATCH ids after $1, filled where
 *  still empty (a row written since has them from the trigger); answers the last id of the
 *  batch (null when none is left). Rows a writer holds locked are skipped rather than waited
 *  for (the fill never waits on a write, so never deadlocks with a transaction writing several
 *  rows): the writer's update fills them, and if it rolls back the next pass does. */
export function backfillSql(table: string, path: string): string {
  const b = sortColumnBase(path);
  const x = pathExpr(path).replace(/\bdoc\b/, 't.doc');
  return `WITH b AS (SELECT id FROM ${table} WHERE id > $1 AND ${b}_r IS NULL ORDER BY id LIMIT ${BACKFILL_BATCH} FOR NO KEY UPDATE SKIP LOCKED),`
    + ` u AS (UPDATE ${table} AS t SET ${b}_r = hb_rank(${x}), ${b}_n = hb_sort_num(${x}), ${b}_s = hb_str(${x})`
    + ` FROM b WHERE t.id = b.id AND t.${b}_r IS NULL)`
    + ` SELECT max(id) AS last FROM b`;
}

export const validateSql = (table: string, path: string) => `ALTER TABLE ${table} VALIDATE CONSTRAINT ${sortColumnBase(path)}_ok`;
