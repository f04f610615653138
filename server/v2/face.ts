// The v2 face over a v1 route: the route's JSON answer (res.json) is written in the v2
// envelope instead. A list (`{ data: [...], meta: { total } }`) gets `pagination` from the
// shared list parser's window; one resource gets caching headers, `fields=`, and on creation
// `Location`; an error keeps its body and gains `meta`. Answers that are not JSON (downloads,
// tus, 204) pass untouched.
import type { Request, Response } from 'express';
import { writeJsonText } from '../core/http.js';
import { errorWithMeta, sendList, sendOne, selfUrl, type ListMetaIn } from './envelope.js';
import { paginationOf } from './list-extension.js';

function isList(body: unknown): body is { data: unknown[]; meta: ListMetaIn } {
  const b = body as { data?: unknown; meta?: { total?: unknown } } | null;
  return b !== null && typeof b === 'object' && Array.isArray(b.data) && typeof b.meta?.total === 'number';
}

/** Makes res.json write the v2 shape for this response. */
export function answerInV2Shape(req: Request, res: Response): void {
  const json = function (this: Response, body: unknown): Response {
    const status = this.statusCode;
    if (status >= 400) {
      if (body !== null && typeof body === 'object' && 'error' in body) writeJsonText(this, errorWithMeta(body as { error: unknown }));
      else writeJsonText(this, JSON.stringify(body));
      return this;
    }
    if (status === 204 || status === 304) { this.end(); return this; }
    if (isList(body)) {
      sendList(req, this, body.data, body.meta, paginationOf(req));
      return this;
    }
    const id = (body as { _id?: unknown } | null)?._id;
    const base = selfUrl(req).split('?')[0].replace(/\/+$/, '');
    if (status === 201 && req.method === 'POST' && typeof id === 'string') {
      const location = `${base}/${encodeURIComponent(id)}`;
      this.setHeader('Location', location);
      sendOne(req, this, status, body, { self: location, collection: base });
      return this;
    }
    // An item read at its own address belongs to the list one level up.
    const lastSegment = decodeURIComponent(base.slice(base.lastIndexOf('/') + 1));
    sendOne(req, this, status, body, typeof id === 'string' && id === lastSegment ? { collection: base.slice(0, base.lastIndexOf('/')) } : {});
    return this;
  };
  Object.defineProperty(res, 'json', { value: json, configurable: true, writable: true });
}
