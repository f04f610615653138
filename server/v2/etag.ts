// HTTP caching of v2 answers: a strong ETag of the representation (the `data` an answer
// carries, with its paging: never the envelope's timestamp), `Cache-Control: private, no-cache`
// (revalidate every time; bearer-token answers are the caller's own), 304 on a matching
// `If-None-Match`, and `If-Match` preconditions on changes (412 when stale, nothing written).
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { ApiError } from '../core/errors.js';

export const CACHE_CONTROL = 'private, no-cache';

// Not server state: a bounded memo of a pure function of the text.
const byText = new Map<string, string>();

/** A strong entity tag of a JSON text. */
export function etagOf(text: string): string {
  // Stored records are re-served many times: remember the last few thousand texts' tags.
  if (text.length < 4096) {
    const hit = byText.get(text);
    if (hit) return hit;
  }
  const tag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
  if (text.length < 4096) {
    if (byText.size >= 4096) byText.clear();
    byText.set(text, tag);
  }
  return tag;
}

/** The entity tags of a conditional header: `*`, or a list of (possibly weak) quoted tags;
 *  undefined when the header is absent; a 400 naming the header when it is malformed. */
export function parseTagList(value: string | undefined, header: string): '*' | Array<{ tag: string; weak: boolean }> | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '*') return '*';
  const out: Array<{ tag: string; weak: boolean }> = [];
  const re = /\s*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(,|$)/y;
  let i = 0;
  while (i < trimmed.length) {
    re.lastIndex = i;
    const m = re.exec(trimmed);
    if (!m) throw ApiError.badRequest(`Malformed ${header} header: give "*" or entity tags in double quotes, as ETag sent them`, { field: header });
    out.push({ tag: m[2], weak: !!m[1] });
    i = re.lastIndex;
  }
  if (!out.length) throw ApiError.badRequest(`Malformed ${header} header: give "*" or entity tags in double quotes, as ETag sent them`, { field: header });
  return out;
}

/** Does `If-None-Match` match this tag (weak comparison, as the header asks)? */
export function notModified(req: Request, tag: string): boolean {
  const header = req.headers['if-none-match'];
  if (header === undefined) return false;
  const list = parseTagList(header, 'If-None-Match')!;
  return list === '*' || list.some((t) => t.tag === tag);
}

/** The `If-Match` precondition of a change as a check of the current representation's tag
 *  (strong comparison: a weak tag never matches); undefined when the request has none. */
export function ifMatchCheck(req: Request): ((currentTag: string) => void) | undefined {
  const list = parseTagList(req.headers['if-match'], 'If-Match');
  if (list === undefined) return undefined;
  return (currentTag) => {
    if (list === '*') return;
    if (!list.some((t) => !t.weak && t.tag === currentTag)) {
      throw new ApiError('PRECONDITION_FAILED', 'If-Match names a version that is no longer current: read the resource again (its ETag) and retry; nothing was changed',
        { field: 'If-Match', etag: currentTag });
    }
  };
}

/** Sets the caching headers of a GET; true when the answer is a 304 (already sent). */
export function answerCached(req: Request, res: Response, tag: string): boolean {
  res.setHeader('ETag', tag);
  res.setHeader('Cache-Control', CACHE_CONTROL);
  if ((req.method === 'GET' || req.method === 'HEAD') && notModified(req, tag)) {
    res.statusCode = 304;
    res.end();
    return true;
  }
  return false;
}
