// What a change of one resource means: `merge` (the fields sent are changed, the others stay:
// every PATCH, and v1's PUT) or `replace` (the resource becomes the body: optional fields not
// sent are removed or take their defaults as on creation, required fields must be sent, the
// server's own fields are kept; v2's PUT). The routes are shared by both API versions: the v2
// face marks its requests, and a route asks `changeModeOf(req)` which meaning its PUT has.
import type { Request } from 'express';

export type ChangeMode = 'merge' | 'replace';

const replacing = new WeakSet<object>();

/** Marks a request whose PUT replaces (the v2 face's). */
export function putReplaces(req: Request): void {
  replacing.add(req);
}

/** The meaning of this request's change: `replace` for a PUT of a marked request, else `merge`. */
export function changeModeOf(req: Request): ChangeMode {
  return req.method === 'PUT' && replacing.has(req) ? 'replace' : 'merge';
}

/** A stored document replaced by `fields`: of its own keys, those a client writes (`writable`)
 *  give way to the new values of `fields` (absent ones left out), in their place; the rest (the
 *  server's: ids, stamps, sealed secrets, owners) are kept, or take the value `fields` gives
 *  them (`updatedAt`). */
export function replacedDoc<T extends object>(current: T, writable: readonly string[], fields: object): T {
  const given = Object.entries(fields).filter(([, value]) => value !== undefined);
  const out: Record<string, unknown> = {};
  let placed = false;
  const place = () => {
    if (placed) return;
    placed = true;
    for (const [key, value] of given) if (writable.includes(key)) out[key] = value;
  };
  for (const [key, value] of Object.entries(current)) {
    if (writable.includes(key)) place();
    else out[key] = value;
  }
  place();
  for (const [key, value] of given) if (!writable.includes(key)) out[key] = value;
  return out as T;
}
