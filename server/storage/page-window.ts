// Keyset paging shared by both drivers (a query's `window`, shared/query.ts): the order a window
// reads in (the query's sort, then `_id`; reversed to read backward), the test "strictly after
// this position", and the last step that trims the page, puts it back in list order and reports
// where it starts and ends. A position is a list of values, one per key of the order, so a page
// read from it never skips or repeats a document because others were created or deleted.
import model from '@seald-io/nedb/lib/model.js';
import type { Doc, SortKey, StoreQuery } from '../shared/query.js';
import { getPath } from './doc-path.js';

const compareThings = model.compareThings;

/** The order of a window over `sort`: its keys, then `_id` (unless already there), all
 *  reversed when reading backward. */
export function windowKeys(sort: SortKey[], backward = false): SortKey[] {
  const cut = sort.findIndex((k) => k.path === '_id');
  const keys: SortKey[] = cut === -1 ? [...sort, { path: '_id', dir: 1 }] : sort.slice(0, cut + 1);
  return backward ? keys.map((k) => ({ path: k.path, dir: (k.dir === 1 ? -1 : 1) as 1 | -1 })) : keys;
}

/** A document's values at the order's keys. */
export function positionOf(doc: Doc, keys: SortKey[]): unknown[] {
  return keys.map((k) => getPath(doc, k.path));
}

/** Does a document sort strictly after `position` in the order of `keys`? (nedb's order of
 *  values: the one the embedded driver sorts by.) */
export function afterPosition(keys: SortKey[], position: unknown[]): (doc: Doc) => boolean {
  return (doc) => {
    for (let i = 0; i < keys.length; i++) {
      const r = compareThings(getPath(doc, keys[i].path), position[i]) * keys[i].dir;
      if (r !== 0) return r > 0;
    }
    return false;
  };
}

/** Turns the documents a window read (up to limit + 1 past the offset, in the order read) into the page, in list
 *  order, and writes the window's result. */
export function finishWindow(q: StoreQuery, keys: SortKey[], read: Doc[]): Doc[] {
  const w = q.window!;
  const more = read.length > q.limit;
  const page = read.slice(0, q.limit);
  if (w.backward) page.reverse();
  const listKeys = w.backward ? windowKeys(keys, true) : keys;
  w.result = {
    keys: listKeys,
    ...(page.length ? { first: positionOf(page[0], listKeys), last: positionOf(page[page.length - 1], listKeys) } : {}),
    more,
  };
  return page;
}
