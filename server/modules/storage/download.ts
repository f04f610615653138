// Sends a stored file like a good static file server: type, length, a strong ETag,
// Content-Disposition with a safe name, conditional requests (304) and single byte ranges (206/416).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { ApiError } from '../../core/errors.js';
import { contentDisposition, isInlineSafe } from './names.js';
import { etagOf, type FileDoc } from './service.js';

/** Does an If-None-Match / If-Range list name this ETag? (weak comparison, as RFC 9110 says for If-None-Match) */
function matches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}

export async function sendFile(req: Request, res: Response, doc: FileDoc, path: string): Promise<void> {
  const etag = etagOf(doc);
  const info = await stat(path).catch(() => undefined);
  if (!info || !info.isFile()) throw ApiError.notFound('File', doc._id);

  res.set({
    ETag: etag,
    'Last-Modified': new Date(doc.createdAt).toUTCString(),
    'Cache-Control': 'private, no-cache',
    'Accept-Ranges': 'bytes',
    'Content-Disposition': contentDisposition(doc.name, doc.type),
  });
  res.setHeader('Content-Type', doc.type); // as stored: Express's res.set would add a charset
  // A file shown in place must never run as a page of this origin (the console lives here too).
  if (!isInlineSafe(doc.type)) res.set('Content-Security-Policy', "default-src 'none'; sandbox");

  const inm = req.headers['if-none-match'];
  if (inm && matches(inm, etag)) { res.status(304).end(); return; }

  const size = info.size;
  let start = 0;
  let end = size - 1;
  const ifRange = req.get('if-range');
  // If-Range with a date or another ETag: the representation may have changed, send it whole.
  if (req.headers.range && (!ifRange || ifRange.trim() === etag)) {
    const ranges = req.range(size, { combine: true });
    if (ranges === -1) {
      res.status(416).set('Content-Range', `bytes */${size}`).removeHeader('Content-Type');
      res.end();
      return;
    }
    // Malformed ranges (-2), other units and multiple ranges: ignored, the whole file is sent.
    if (Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1) {
      start = ranges[0].start;
      end = ranges[0].end;
      res.status(206).set('Content-Range', `bytes ${start}-${end}/${size}`);
    }
  }
  res.set('Content-Length', String(size === 0 ? 0 : end - start + 1));
  if (req.method === 'HEAD' || size === 0) { res.end(); return; }
  try {
    await pipeline(createReadStream(path, { start, end, highWaterMark: 256 * 1024 }), res);
  } catch {
    res.destroy(); // the client went away (or the file vanished mid-way): nothing more to say
  }
}
