// What both drivers share of a list query: reading values at dot paths, matching conditions,
// ordering, projection, running long queries in steps, and list queries over documents held in
// memory (the request log, collection definitions, a channel's members). The embedded driver's
// planner over nedb's indexes is embedded/planner.ts; PostgreSQL's SQL is pg/sql-query.ts.
import { afterPosition, finishWindow, windowKeys } from './page-window.js';
import type { Doc, SortKey, StoreQuery, QueryResult } from '../shared/query.js';
import { compileMatcher } from './query-match.js';
import { comparator } from './query-sort.js';
import { project } from './query-project.js';

export { FILTER_OPERATORS, DEFAULT_SORT, numericString, parseIsoDate } from '../shared/query.js';
export type { Doc, FilterOp, Condition, SortKey, StoreQuery, QueryResult } from '../shared/query.js';
export { getPath } from './doc-path.js';
export { runSteps, runSliced, SLICE_MS } from './query-steps.js';
export { comparator, selectTop, fieldReader } from './query-sort.js';
export { compileMatcher } from './query-match.js';
export { project } from './query-project.js';

/** A list query over documents held in memory (the request log, collection definitions, a
 *  channel's members): filter, sort (`defaultSort` when the query names none), page, project. */
export function queryDocs(docs: Doc[], q: StoreQuery, defaultSort: SortKey[] = []): QueryResult {
  const matched = docs.filter(compileMatcher(q.conditions, q.or));
  const sort = q.sort.length ? q.sort : defaultSort;
  if (q.window && q.limit > 0) {
    const keys = windowKeys(sort, q.window.backward);
    const position = q.window.seek;
    const after = position ? afterPosition(keys, position) : null;
    const read = (after ? matched.filter(after) : matched).sort(comparator(keys)).slice(q.offset, q.offset + q.limit + 1);
    const page = finishWindow(q, keys, read);
    return { data: q.fields ? page.map((d) => project(d, q.fields!)) : page, total: matched.length };
  }
  if (sort.length) matched.sort(comparator(sort));
  const page = q.limit === 0 ? [] : matched.slice(q.offset, q.offset + q.limit);
  return { data: q.fields ? page.map((d) => project(d, q.fields!)) : page, total: matched.length };
}
