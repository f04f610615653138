// How big one list request may be. Every list (records, users, files, messages, channels,
// webhooks, logs, executions, the request log) is parsed by core/list-query.ts, which checks these
// before anything runs: a request over one of them answers 400 BAD_REQUEST naming the limit in
// `details` (`{ field, limit, max, given }`). They bound what one request can make the server do
// per record (sort keys compared, values looked up, paths walked, fields copied); the query
// executor (storage/query-steps.ts) bounds how long it holds the event loop at a time.
import { ApiError } from './errors.js';

export const LIST_LIMITS = {
  /** Keys in `sort=` (a view's sort included). */
  sortKeys: 8,
  /** `filter[...]` parameters of one request; a view's filter counts on its own. */
  filters: 20,
  /** Values of one `$in` / `$nin` list. */
  inValues: 100,
  /** Entries in `fields=`. */
  fields: 100,
  /** Characters of one field path (`a.b.c`). */
  pathLength: 200,
  /** Segments of one dot path. */
  pathDepth: 10,
  /** Characters of one filter value (each value of an `$in` list counts on its own). */
  valueLength: 1000,
} as const;

export type ListLimit = keyof typeof LIST_LIMITS;

const WHAT: Record<ListLimit, string> = {
  sortKeys: 'sort keys',
  filters: 'filter parameters',
  inValues: 'values in one $in/$nin list',
  fields: 'entries in fields',
  pathLength: 'characters in a field path',
  pathDepth: 'segments in a dot path',
  valueLength: 'characters in a filter value',
};

/** Throws 400 when `given` is over the limit. `field`: the query parameter at fault. */
export function checkListLimit(limit: ListLimit, given: number, field: string): void {
  const max = LIST_LIMITS[limit];
  if (given > max) {
    throw ApiError.badRequest(`Too many ${WHAT[limit]} in '${field}': ${given}, at most ${max}`, { field, limit, max, given });
  }
}
