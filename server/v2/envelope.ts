// The v2 answer: `{ data, meta: { timestamp, version: "2" }, links: { self, collection? } }`;
// lists add `meta.total`, `meta.limit` (and `meta.offset` when paged by offset) and
// `pagination: { next, prev, hasMore }`; errors keep the v1 body and add `meta`. Answers are
// written as text built around the data's own JSON (a stored record's cached text), with the
// caching headers of etag.ts.
import type { Request, Response } from 'express';
import { storedDocJson, writeJsonText } from '../core/http.js';
import { project, type Doc } from '../storage/query.js';
import { answerCached, etagOf } from './etag.js';
import type { Pagination } from './list-extension.js';

export const V2_PREFIX = '/api/v2';

/** `http://host:port` as the client addressed the server. */
export function originOf(req: Request): string {
  // As Express's req.protocol without a trusted proxy (the server trusts none).
  return `${(req.socket as { encrypted?: boolean } | undefined)?.encrypted ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`;
}

/** The absolute URL of the request (query string included). */
export function selfUrl(req: Request): string {
  return originOf(req) + req.originalUrl;
}

/** The absolute URL of a path under the request's workspace (`/database/todos`). */
export function workspaceUrl(req: Request, path: string): string {
  return `${originOf(req)}${V2_PREFIX}/app/${encodeURIComponent(req.ws?.id ?? String((req.params as { appId?: string }).appId ?? ''))}${path}`;
}

function metaText(extra = ''): string {
  return `{"timestamp":"${new Date().toISOString()}","version":"2"${extra}}`;
}

function linksText(self: string, collection?: string): string {
  return `{"self":${JSON.stringify(self)}${collection ? `,"collection":${JSON.stringify(collection)}` : ''}}`;
}

/** `fields=a,b.c` of the request, when given. */
export function fieldsOf(req: Request): string[] | undefined {
  if (!req.url.includes('fields=')) return undefined;
  const raw = (req.query as Record<string, unknown>).fields;
  if (typeof raw !== 'string' || raw === '') return undefined;
  return raw.split(',').map((f) => f.trim()).filter(Boolean);
}

export interface OneOptions {
  /** URL of the list the resource belongs to. */
  collection?: string;
  /** The resource's own URL, when not the request's (a creation's `Location`). */
  self?: string;
  /** The data's JSON text, when already at hand (a stored record's). */
  text?: string;
}

/** One resource (or any non-list value) in the envelope. GETs get the caching headers and may
 *  be answered 304; `fields=` keeps only the paths named (and `_id`). */
export function sendOne(req: Request, res: Response, status: number, data: unknown, options: OneOptions = {}): void {
  const fields = req.method === 'GET' || req.method === 'HEAD' ? fieldsOf(req) : undefined;
  let text = options.text;
  if (fields && data !== null && typeof data === 'object' && !Array.isArray(data)) {
    data = project(data as Doc, fields);
    text = undefined;
    if ((data as Doc)._id === undefined) delete (data as Record<string, unknown>)._id;
  }
  const whole = text === undefined && data !== null && typeof data === 'object';
  text ??= data !== null && typeof data === 'object' ? storedDocJson(data) : JSON.stringify(data ?? null);
  res.statusCode = status;
  if ((req.method === 'GET' || req.method === 'HEAD') && status === 200 && answerCached(req, res, whole ? tagOfObject(data as object, text) : etagOf(text))) return;
  if (req.method !== 'GET' && status < 300 && data !== null && typeof data === 'object') {
    // A change answers with the resource's new version: its tag, for the next If-Match.
    res.setHeader('ETag', etagOf(text));
  }
  writeJsonText(res, `{"data":${text},"meta":${metaText()},"links":${linksText(options.self ?? selfUrl(req), options.collection)}}`);
}

// Tags of stored (never mutated) documents, kept as long as the document object lives. Not
// server state: a memo per immutable object.
const objectTags = new WeakMap<object, string>();

function tagOfObject(obj: object, text: string): string {
  let tag = objectTags.get(obj);
  if (tag === undefined) { tag = etagOf(text); objectTags.set(obj, tag); }
  return tag;
}

export interface ListMetaIn { total: number; limit: number; offset?: number }

/** A page of a list in the envelope, with `pagination`; GETs get the caching headers. */
export function sendList(req: Request, res: Response, items: unknown[], meta: ListMetaIn, pagination: Pagination, texts?: string[]): void {
  const dataText = `[${(texts ?? items.map((d) => (d !== null && typeof d === 'object' ? storedDocJson(d) : JSON.stringify(d)))).join(',')}]`;
  const pageText = `${dataText},"total":${meta.total},"limit":${meta.limit},"pagination":${JSON.stringify(pagination)}`;
  res.statusCode = 200;
  if ((req.method === 'GET' || req.method === 'HEAD') && answerCached(req, res, etagOf(pageText))) return;
  const offset = meta.offset !== undefined && !(req.query as Record<string, unknown>).cursor ? `,"offset":${meta.offset}` : '';
  writeJsonText(res, `{"data":${dataText},"meta":${metaText(`,"total":${meta.total},"limit":${meta.limit}${offset}`)},"links":${linksText(selfUrl(req))},"pagination":${JSON.stringify(pagination)}}`);
}

/** An error body of v1's shape with the envelope's `meta`. */
export function errorWithMeta(body: { error: unknown }): string {
  return `{"error":${JSON.stringify(body.error)},"meta":${metaText()}}`;
}
