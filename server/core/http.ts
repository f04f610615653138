// HTTP plumbing shared by every route: JSON bodies (400 / 413 / 415), the loopback Host check,
// CORS for the workspace API, and small response helpers.
import express, { type Request, type RequestHandler, type Response } from 'express';
import { ApiError } from './errors.js';
import { mayHoldUnstorableText, unstorableTextError } from './unstorable-text.js';

/** The request log's per-response state (modules/request-log), declared first on every response
 *  (server/express/request-shape.ts). */
export const REQUEST_LOG = Symbol('requestLog');

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** Requests whose raw JSON body may hold unstorable text (see jsonBody). */
const suspect = new WeakSet<object>();

export function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Parses JSON bodies of POST/PUT/PATCH into an object; req.body is {} when there is none.
 *  `skip` lets raw-body routes (uploads, tus) pass through untouched. */
export function jsonBody(limit: number, skip: (req: Request) => boolean = () => false, setting: LimitSetting = JSON_LIMIT): RequestHandler {
  // Notes whether the raw text may hold NUL or a lone surrogate (unstorable-text.ts), so that
  // only such bodies are walked.
  const json = express.json({ limit, strict: true, type: () => true, verify: (req, _res, buf) => { if (mayHoldUnstorableText(buf)) suspect.add(req); } });
  const parse: RequestHandler = (req, res, next) => json(req, res, (err?: unknown) => {
    const type = (err as { type?: string } | undefined)?.type;
    next(type === 'entity.too.large' ? tooLargeError('The JSON body', limit, setting) : err);
  });
  return (req, res, next) => {
    if (skip(req)) return next();
    if (!BODY_METHODS.has(req.method) || !hasBody(req)) { req.body = {}; return next(); }
    if (!req.is('application/json') && !req.is('application/*+json')) return next(ApiError.unsupportedMediaType());
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
        return next(ApiError.badRequest('Request body must be a JSON object'));
      }
      if (tooDeep(req.body, MAX_JSON_DEPTH)) {
        return next(ApiError.badRequest(`Request body is nested more than ${MAX_JSON_DEPTH} levels deep`));
      }
      if (suspect.delete(req)) {
        const unstorable = unstorableTextError(req.body);
        if (unstorable) return next(unstorable);
      }
      next();
    });
  };
}

/** The flag and option that set a body limit, named in its 413. */
export interface LimitSetting { flag: string; option: string }
export const JSON_LIMIT: LimitSetting = { flag: '--json-limit', option: 'jsonLimit' };

/** "1 MiB (1048576 bytes)" */
export function formatBytes(n: number): string {
  const units: Array<[number, string]> = [[1024 ** 3, 'GiB'], [1024 ** 2, 'MiB'], [1024, 'KiB']];
  for (const [size, unit] of units) if (n >= size) return `${Number((n / size).toFixed(2))} ${unit} (${n} bytes)`;
  return `${n} bytes`;
}

/** A 413 naming the limit and the setting that raises it. */
export function tooLargeError(what: string, limit: number, setting: LimitSetting, hint = ''): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `${what} is over the ${formatBytes(limit)} limit; start the server with ${setting.flag} BYTES (startServer option ${setting.option}) to raise it${hint}`, { limit });
}

/** Deepest nesting of objects and arrays a JSON body may have. JSON.parse copes with any depth,
 *  but everything after it that walks a value recursively (JSON.stringify of the answer, the
 *  store's copies and key checks, validators) overflows the stack near 10,000 levels: a 500. */
export const MAX_JSON_DEPTH = 256;

/** Is `value` nested deeper than `max` levels? Iterative, so that the check itself cannot overflow. */
export function tooDeep(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** DNS-rebinding guard for a loopback-bound server: Host must be an IP literal, localhost or *.localhost. */
export function loopbackHostGuard(): RequestHandler {
  return (req, _res, next) => {
    const host = (req.headers.host ?? '').toLowerCase();
    const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
    const ok = name === '' || name === 'localhost' || name.endsWith('.localhost') || /^\d{1,3}(\.\d{1,3}){3}$/.test(name) || name.includes(':');
    next(ok ? undefined : ApiError.forbidden(`Host '${name}' is not allowed; use localhost or an IP address`));
  };
}

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, Tus-Resumable, Upload-Length, Upload-Offset, Upload-Metadata, Upload-Defer-Length, Upload-Concat, X-HTTP-Method-Override, X-Requested-With, Range, If-None-Match, If-Match, X-API-Key',
  'Access-Control-Expose-Headers': 'Location, Upload-Offset, Upload-Length, Upload-Expires, Upload-Metadata, Tus-Resumable, Tus-Version, Tus-Extension, Tus-Max-Size, Content-Disposition, Content-Length, Content-Range, ETag, Retry-After',
  'Access-Control-Max-Age': '600',
};

/** CORS for any origin (bearer tokens, no cookies); answers preflights itself. */
export const cors: RequestHandler = (req, res, next) => {
  if (!req.headers.origin) return next();
  res.set(CORS_HEADERS);
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) { res.status(204).end(); return; }
  next();
};

/** A response value's JSON text, computed ahead (see `preserialised`); a symbol key, so that
 *  JSON.stringify of the value itself still gives the same text. */
export const JSON_TEXT = Symbol('jsonText');

/** Attaches `text` (which must be exactly JSON.stringify(value)) to a fresh value for res.json. */
export function preserialised<T extends object>(value: T, text: string): T {
  Object.defineProperty(value, JSON_TEXT, { value: text, enumerable: false });
  return value;
}

/** The JSON text of the documents sent most recently is kept (per document object: stored
 *  documents are never mutated, the store replaces them on update, so the text stays right), in
 *  two generations of at most this many documents: a text used again moves to the young one,
 *  and when the young one is full the old one is dropped. At most twice this many texts are kept
 *  (~5 MB of records of ~250 bytes), however many records the stores hold. */
export const DOC_TEXT_GENERATION = 10_000;
let youngText = new WeakMap<object, string>();
let oldText = new WeakMap<object, string>();
let youngCount = 0;

/** JSON.stringify of a stored (never mutated) document, cached per document object. */
export function storedDocJson(doc: object): string {
  let text = youngText.get(doc);
  if (text !== undefined) return text;
  text = oldText.get(doc) ?? JSON.stringify(doc);
  if (youngCount >= DOC_TEXT_GENERATION) { oldText = youngText; youngText = new WeakMap(); youngCount = 0; }
  youngText.set(doc, text);
  youngCount++;
  return text;
}

/** May this response be written as plain JSON text (`Content-Type: application/json;
 *  charset=utf-8`, `Content-Length`, the body), as Express's res.json would write it? Not for
 *  HEAD, 204/205/304, a content type, ETag or Last-Modified already set, or a conditional
 *  request: those take Express's own res.json. */
export function plainJsonResponse(res: Response): boolean {
  const req = res.req;
  const status = res.statusCode;
  return !(req.method === 'HEAD' || status === 204 || status === 304 || status === 205
    || res.getHeader('content-type') !== undefined || res.getHeader('etag') !== undefined || res.getHeader('last-modified') !== undefined
    || req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined);
}

/** Ends a response that plainJsonResponse allows with `text`, JSON already. */
export function writeJsonText(res: Response, text: string): Response {
  // The request log's state of this response (workspace API only): it keeps the text for the
  // request's detail (a reference; bounded and masked when read).
  const logged = (res as unknown as { [REQUEST_LOG]?: { responseText: string | undefined } })[REQUEST_LOG];
  if (logged) logged.responseText = text;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
  return res;
}

/** res.json of a stored document, written from its cached text (the same bytes). */
export function sendStoredDoc(res: Response, doc: object): void {
  if (plainJsonResponse(res)) writeJsonText(res, storedDocJson(doc));
  else res.json(doc);
}
