// The query language of lists, as the list-query parser (core) produces it and the store's
// planner (storage) runs it: conditions, sort keys, and the value readings both sides share.
// Browser-safe.

export type Doc = Record<string, unknown> & { _id: string };

export const FILTER_OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists', '$contains', '$startsWith'] as const;
export type FilterOp = (typeof FILTER_OPERATORS)[number];

/** One condition. `values` are the alternatives a value may match (a coerced value and, for
 *  schemaless fields, its string form); for `$exists` a single boolean. `kind: 'date'` (range
 *  operators only): `values` are instants (ms since the epoch) and a document's value matches
 *  when it is an ISO 8601 date string (parseIsoDate) at a suitable instant. */
export interface Condition { path: string; op: FilterOp; values: unknown[]; kind?: 'date' }
export interface SortKey { path: string; dir: 1 | -1 }

export interface StoreQuery {
  conditions: Condition[];
  sort: SortKey[];
  limit: number;
  offset: number;
  /** Return only these paths (plus `_id`). */
  fields?: string[];
  /** `or` groups: every group must hold, a group holds when one of its branches does, and a
   *  branch holds when all its conditions do. */
  or?: Condition[][][];
  /** Keyset paging (see PageWindow); `offset` is not applied when it is set. */
  window?: PageWindow;
  /** The caller does not want the total (`skipTotal=true`): a store may leave it uncounted and
   *  answer -1. */
  skipTotal?: boolean;
}

/** A page read by position in the list's order instead of by offset. The order is the query's
 *  sort (or the store's default), then `_id`, so that no two documents tie. */
export interface PageWindow {
  /** Only documents strictly after (or, `backward`, strictly before) these values of the order's
   *  keys, `_id` last. Absent: from the start of the list (or its end, `backward`). */
  seek?: unknown[];
  backward?: boolean;
  /** Written by the store that ran the query: the order used, the order's values of the first
   *  and last document of the page (in list order), and whether documents follow the page in
   *  the direction read. */
  result?: { keys: SortKey[]; first?: unknown[]; last?: unknown[]; more: boolean };
}

export interface QueryResult { data: Doc[]; total: number }

/** Default order of lists: creation time, then id. */
export const DEFAULT_SORT: SortKey[] = [{ path: 'createdAt', dir: 1 }];

/** The number a string reads as (`"25"`, `" -1.5"`, `"1e3"`), or undefined (`""`, `"abc"`). */
export function numericString(s: string): number | undefined {
  if (s.trim() === '') return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

export const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):?(\d{2}))?)?$/;

/** An ISO 8601 date (`2024-02-29`) or date-time (`2024-02-29T10:30:00.5+01:00`, `T` or a space,
 *  seconds, fraction and offset optional) as ms since the epoch; undefined when the text is not
 *  of that form or names a date or time that does not exist (`2024-02-30`, `25:00`), which
 *  Date.parse would roll over. Without an offset the time is read as UTC. */
export function parseIsoDate(s: string): number | undefined {
  const m = ISO_DATE.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((x) => (x === undefined ? undefined : Number(x))) as number[];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (m[8]) {
    const oh = Number(m[9]), om = Number(m[10]);
    if (oh > 23 || om > 59) return undefined;
    offset = (m[8] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const t = new Date(0);
  t.setUTCFullYear(year, month - 1, day);
  t.setUTCHours(hour, minute, second, Number(((m[7] ?? '') + '000').slice(0, 3)));
  return t.getTime() - offset * 60_000;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}

