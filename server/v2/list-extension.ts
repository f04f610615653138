// What a v2 list adds to the shared list query: `or` groups and keyset paging (cursors). It is
// handed to the list parser on the request's query object (core/list-query.ts LIST_EXTENSION),
// so every list route, the v1 handlers the v2 face runs included, gets it without a rule of its
// own; after the route answered, `pagination` reads where the page started and ended.
import type { Request } from 'express';
import { ApiError } from '../core/errors.js';
import { LIST_EXTENSION, type ListExtension } from '../core/list-query.js';
import { isOrFilterKey, parseOrGroups } from '../core/or-filter.js';
import type { PageWindow } from '../shared/query.js';
import { bindingOf, decodeCursor, encodeCursor } from './cursor.js';

export interface Pagination { next: string | null; prev: string | null; hasMore: boolean }

interface ListState { window: PageWindow; binding: string; viaCursor: boolean; offset: number }

// Not server state: a note on one request, gone with it.
const STATE = new WeakMap<Request, ListState>();

/** Gives the request a query object that carries the v2 list extension. `scope` names the list
 *  (workspace and path) in its cursors. */
export function extendListQuery(req: Request, scope: string): void {
  const query = Object.assign(Object.create(null) as Record<string | symbol, unknown>, req.query as Record<string, unknown>);
  const extension: ListExtension = {
    owns: (key) => key === 'cursor' || isOrFilterKey(key),
    extend(raw, q, options) {
      const or = parseOrGroups(raw, options.typeOf);
      if (or.length) q.or = or;
      const binding = bindingOf([scope, q.conditions, q.or ?? [], q.sort, raw.view ?? null]);
      const window: PageWindow = {};
      const viaCursor = raw.cursor !== undefined && raw.cursor !== '';
      if (viaCursor) {
        if (raw.offset !== undefined) throw ApiError.badRequest("'cursor' and 'offset' cannot be combined: a cursor already says where the page starts", { field: 'cursor' });
        const cursor = decodeCursor(raw.cursor, binding);
        window.seek = cursor.position;
        window.backward = cursor.backward;
      }
      q.window = window;
      STATE.set(req, { window, binding, viaCursor, offset: q.offset });
    },
  };
  query[LIST_EXTENSION] = extension;
  Object.defineProperty(req, 'query', { value: query, configurable: true, enumerable: true, writable: true });
}

/** The `pagination` of the list a request read (all null when it read none by the shared
 *  parser, or asked for `limit=0`). */
export function paginationOf(req: Request): Pagination {
  const state = STATE.get(req);
  const r = state?.window.result;
  if (!state || !r) return { next: null, prev: null, hasMore: false };
  const cursor = (position: unknown[] | undefined, backward: boolean) => (position ? encodeCursor({ position, backward }, state.binding) : null);
  const seek = state.window.seek;
  if (state.window.backward) {
    // Read backward from a `prev` cursor: what follows is where the reader came from.
    const next = cursor(r.last ?? seek, false);
    return { next, prev: r.more ? cursor(r.first, true) : null, hasMore: next !== null };
  }
  const next = r.more ? cursor(r.last, false) : null;
  const before = state.viaCursor || state.offset > 0;
  return { next, prev: before ? cursor(r.first ?? seek, true) : null, hasMore: r.more };
}
