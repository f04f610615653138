// The v2 answer: `{ data, meta: { timestamp, version: "2" }, links: { self, collection? } }`;
// lists add `meta.total`, `meta.limit` (and `meta.offset` when paged by offset) and
// `pagination: { next, prev, hasMore }`; errors keep the v1 body and add `meta`. Answers are
// written as text built around the data's own JSON (a stored record's cached text), with the
// caching headers of etag.ts.
import type { Request, Response } from 'express';
import { storedDocJson, writeJsonText } from '../core/http.js';
import { project, type Doc } from '../storage/query.js';
import { answerCached, CACHE_CONTROL, etagOf } from './etag.js';
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

// `meta` without extras, made once per millisecond: a Date and its ISO text per answer were a
// tenth of a v2 record GET's own work at thousands of answers a second.
let metaAt = -1;
let metaPlain = '';

function metaText(extra = ''): string {
  const now = Date.now();
  if (now !== metaAt) { metaAt = now; metaPlain = `{"timestamp":"${new Date(now).toISOString()}","version":"2"}`; }
  return extra ? `${metaPlain.slice(0, -1)}${extra}}` : metaPlain;
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

// The JSON text of a record's list URL (`links.collection`) by origin, workspace and collection:
// a handful per server, bounded anyway (the Host header is the client's). Quoting two URLs with
// JSON.stringify was a tenth of a v2 record GET's own work.
const listLinks = new Map<string, string>();

function listLinkJson(req: Request, origin: string, appId: string, collection: string): string {
  const key = `${origin} ${appId} ${collection}`;
  let json = listLinks.get(key);
  if (json === undefined) {
    if (listLinks.size >= 1000) listLinks.clear();
    json = JSON.stringify(`${origin}${V2_PREFIX}/app/${appId}/database/${collection}`);
    listLinks.set(key, json);
  }
  return req.ws.id === appId ? json : JSON.stringify(workspaceUrl(req, `/database/${collection}`));
}

/** A stored record read at its own address, `{V2_PREFIX}/app/{appId}/database/{collection}/{id}`
 *  with ids of plain characters (the record GET's fast path): sendOne's answer for it in one
 *  pass, from the record's cached text and tag. With `fields=` or `If-None-Match` it is
 *  sendOne's. */
export function sendStoredRecord(req: Request, res: Response, doc: Doc, at: { appId: string; collection: string; id: string }): void {
  const url = req.originalUrl;
  if (req.headers['if-none-match'] !== undefined || url.includes('fields=')) {
    sendOne(req, res, 200, doc, { collection: workspaceUrl(req, `/database/${at.collection}`) });
    return;
  }
  const text = storedDocJson(doc);
  res.statusCode = 200;
  res.setHeader('ETag', tagOfObject(doc, text));
  res.setHeader('Cache-Control', CACHE_CONTROL);
  const origin = originOf(req);
  const list = listLinkJson(req, origin, at.appId, at.collection);
  // The request's own URL is the list's and the id when it has no query and no final slash.
  const self = url.length === V2_PREFIX.length + 16 + at.appId.length + at.collection.length + at.id.length
    ? `${list.slice(0, -1)}/${at.id}"` : JSON.stringify(origin + url);
  writeJsonText(res, `{"data":${text},"meta":${metaText()},"links":{"self":${self},"collection":${list}}}`);
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
