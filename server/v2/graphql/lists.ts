// GraphQL list arguments read by the one list-query parser the REST lists use: they are turned
// into the query-string keys a REST list takes (`limit`, `offset`, `sort`, `cursor`, `view`,
// `filter[field]`, `filter[field][$op]`), handed the v2 list extension (cursors), and the page
// keeps REST's `total`, `limit`, `offset` and `pagination`.
import type { Request } from 'express';
import { ApiError } from '../../core/errors.js';
import { extendListQuery, paginationOf, type Pagination } from '../list-extension.js';

export interface ListArgs {
  filter?: unknown;
  sort?: string | null;
  limit?: number | null;
  offset?: number | null;
  cursor?: string | null;
  view?: string | null;
}

export interface Page<T> { data: T[]; total: number; limit: number; offset: number; pagination: Pagination }

/** One filter value as the query string would carry it. */
function queryText(value: unknown, path: string): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map((v) => queryText(v, path)).join(',');
  throw ApiError.badRequest(`Filter value for '${path}' must be a string, number, boolean, null or a list of them`, { field: path });
}

const isOperators = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k.startsWith('$'));

/** The raw list query of the arguments: `{ age: { $gte: 18 }, role: "admin" }` becomes
 *  `filter[age][$gte]=18&filter[role]=admin`. */
export function rawListQuery(args: ListArgs): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  const num = (v: number | null | undefined, name: string) => {
    if (v === undefined || v === null) return;
    if (!Number.isInteger(v) || v < 0) throw ApiError.badRequest(`'${name}' must be a non-negative integer`, { field: name });
    raw[name] = String(v);
  };
  num(args.limit, 'limit');
  num(args.offset, 'offset');
  if (args.sort) raw.sort = args.sort;
  if (args.cursor) raw.cursor = args.cursor;
  if (args.view) raw.view = args.view;
  const filter = args.filter;
  if (filter !== undefined && filter !== null) {
    if (typeof filter !== 'object' || Array.isArray(filter)) {
      throw ApiError.badRequest("'filter' must be an object: { field: value } or { field: { $op: value } }", { field: 'filter' });
    }
    for (const [path, value] of Object.entries(filter as Record<string, unknown>)) {
      if (isOperators(value)) {
        for (const [op, v] of Object.entries(value)) raw[`filter[${path}][${op}]`] = queryText(v, path);
      } else {
        raw[`filter[${path}]`] = queryText(value, path);
      }
    }
  }
  return raw;
}

/** A list read: `read` gets the raw query (carrying the cursor extension for `scope`, the REST
 *  list's path, so a cursor of one works in the other) and answers the page's data and meta. */
export async function readPage<T>(
  scope: string,
  args: ListArgs,
  read: (query: Record<string, unknown>) => Promise<{ data: T[]; meta: { total: number; limit: number; offset: number } }>,
): Promise<Page<T>> {
  const holder = { query: rawListQuery(args) } as unknown as Request;
  extendListQuery(holder, scope);
  const { data, meta } = await read(holder.query as Record<string, unknown>);
  return { data, total: meta.total, limit: meta.limit, offset: meta.offset, pagination: paginationOf(holder) };
}
