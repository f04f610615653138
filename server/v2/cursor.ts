// Cursors of v2 lists: an opaque string holding a position in the list's order (the values of
// its sort keys, then `_id`, of the record the page starts after or ends before) and a digest of
// the query it belongs to (workspace, path, filter, `or` groups, sort, view). A cursor given to
// another list, or altered, is refused with a 400 naming `cursor`.
import { createHash } from 'node:crypto';
import { ApiError } from '../core/errors.js';

export interface CursorState { position: unknown[]; backward: boolean }

/** The digest a cursor carries of the query it pages through. */
export function bindingOf(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}

/** A missing field is `[]`, a value `[v]`: JSON has no `undefined`, and a missing field sorts
 *  apart from `null`. */
export function encodeCursor(state: CursorState, binding: string): string {
  const payload = { p: state.position.map((v) => (v === undefined ? [] : [v])), d: state.backward ? 'p' : 'n', b: binding };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

export function decodeCursor(raw: unknown, binding: string): CursorState {
  if (typeof raw !== 'string') throw cursorError("'cursor' must be given once, as a string");
  let payload: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error('not base64url');
    payload = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw cursorError("'cursor' is malformed: pass back pagination.next or pagination.prev of an earlier page as it was");
  }
  const p = payload as { p?: unknown; d?: unknown; b?: unknown } | null;
  const wellFormed = p !== null && typeof p === 'object' && Array.isArray(p.p) && p.p.length > 0
    && p.p.every((v) => Array.isArray(v) && v.length <= 1) && (p.d === 'n' || p.d === 'p') && typeof p.b === 'string';
  if (!wellFormed) throw cursorError("'cursor' is malformed: pass back pagination.next or pagination.prev of an earlier page as it was");
  if (p.b !== binding) {
    throw cursorError("'cursor' belongs to another list: a cursor pages through the list it came from (the same workspace, path, filter, sort and view)");
  }
  return { position: (p.p as unknown[][]).map((v) => (v.length ? v[0] : undefined)), backward: p.d === 'p' };
}

function cursorError(message: string): ApiError {
  return ApiError.badRequest(message, { field: 'cursor' });
}
