// `If-Match` on the v2 changes (PUT, PATCH, DELETE) of every resource the v2 face serves
// through a v1 route (collections, fields, views, users, the signed-in user, channels, messages,
// webhooks, scenarios, secrets...). Records check it inside their own write (records.ts).
//
// The current representation is what a GET of the same path answers the same caller: the GET
// route of the same module is run in this process (no second request, nothing logged) and its
// tag computed as the GET's ETag is. A collection's is the collection as `GET /database` lists
// it and a change of it answers (a GET of its own path lists its records). A stale tag → 412 PRECONDITION_FAILED with `details.etag`
// (the current tag), and the change does not run; a malformed header → 400 naming it. A path
// with no current representation (the GET answers 404, or there is no GET there) lets the
// change answer as it would without the header (a missing resource is its 404).
//
// The v2 changes of one resource run one after another in this process (check, then the
// change, to its answer), so that two clients sending the same tag cannot both succeed.
import type { Request, RequestHandler, Response } from 'express';
import { storedDocJson } from '../core/http.js';
import { KeyedSections } from '../storage/keyed-sections.js';
import { findCollection } from '../modules/database/index.js';
import { etagOf, ifMatchCheck } from './etag.js';

const CHANGES = new Set(['PUT', 'PATCH', 'DELETE']);

interface Current { status: number; body?: unknown; text?: string }

const COLLECTION = /^\/database\/([^/]+)\/?$/i;

/** What the GET route of `req`'s path answers the same caller, run through `dispatch`. A
 *  collection (`/database/{id}`, whose GET lists its records) is the collection as a change of
 *  it answers and `GET /database` lists it. */
function currentRepresentation(dispatch: RequestHandler, req: Request): Promise<Current> {
  const collection = COLLECTION.exec(req.path);
  if (collection) {
    const def = findCollection(req.ws, decodeURIComponent(collection[1]));
    return Promise.resolve(def ? { status: 200, body: def } : { status: 404 });
  }
  return new Promise((resolve) => {
    const get = Object.create(req) as Request;
    Object.defineProperty(get, 'method', { value: 'GET', writable: true, configurable: true, enumerable: true });
    let settled = false;
    const finish = (out: Current) => { if (!settled) { settled = true; resolve(out); } };
    const headers = new Map<string, unknown>();
    const capture = {
      req: get, locals: {}, statusCode: 200, headersSent: false,
      status(code: number) { this.statusCode = code; return this; },
      setHeader(name: string, value: unknown) { headers.set(name.toLowerCase(), value); return this; },
      getHeader(name: string) { return headers.get(name.toLowerCase()); },
      removeHeader(name: string) { headers.delete(name.toLowerCase()); },
      set(name: string, value: unknown) { return this.setHeader(name, value); },
      json(body: unknown) { finish({ status: this.statusCode, body }); return this; },
      send(body: unknown) { finish({ status: this.statusCode, ...(typeof body === 'string' ? { text: body } : { body }) }); return this; },
      end(chunk?: unknown) { finish({ status: this.statusCode, ...(typeof chunk === 'string' ? { text: chunk } : {}) }); return this; },
    };
    (get as unknown as { res: unknown }).res = capture;
    try {
      dispatch(get, capture as unknown as Response, (err?: unknown) => {
        const status = (err as { status?: number } | undefined)?.status;
        finish({ status: err ? (typeof status === 'number' ? status : 500) : 404 });
      });
    } catch {
      finish({ status: 500 });
    }
  });
}

/** The tag a v2 GET of this representation carries. */
function tagOf(current: Current): string | undefined {
  if (current.status !== 200) return undefined;
  if (current.text !== undefined) return etagOf(current.text);
  return current.body !== null && typeof current.body === 'object' ? etagOf(storedDocJson(current.body)) : etagOf(JSON.stringify(current.body ?? null));
}

/** The middleware, placed before the v1 routes the v2 face runs. */
export function ifMatchOnV1Routes(dispatch: RequestHandler): RequestHandler {
  const sections = new KeyedSections();
  return (req, res, next) => {
    if (!CHANGES.has(req.method)) return next();
    let check: ReturnType<typeof ifMatchCheck>;
    try { check = ifMatchCheck(req); } catch (err) { return next(err); }
    const key = `${req.ws.id}\u0000${req.path.replace(/\/+$/, '').toLowerCase()}`;
    void sections.run(key, () => new Promise<void>((release) => {
      res.once('finish', () => release());
      res.once('close', () => release());
      if (!check) return next();
      currentRepresentation(dispatch, req).then((current) => {
        const tag = tagOf(current);
        try {
          if (tag !== undefined) check(tag);
        } catch (err) {
          return next(err);
        }
        next();
      }, next);
    }));
  };
}
