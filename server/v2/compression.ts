// brotli or gzip for v2 answers over 1 KiB, as the client's Accept-Encoding asks (the
// `compression` package; it adds `Vary: Accept-Encoding`). Downloads and tus uploads are left
// as they are: their bytes, lengths and ranges are the file's.
import compression from 'compression';
import type { Request, RequestHandler, Response } from 'express';

const UNTOUCHED = /^\/api\/v2\/app\/[^/]+\/storage\/(?:upload\/tus(?:\/|$)|[^/]+\/download\/?$)/;

export function v2Compression(): RequestHandler {
  return compression({
    threshold: 1024,
    filter: (req: Request, res: Response) => !UNTOUCHED.test(req.originalUrl.split('?')[0]) && compression.filter(req, res),
  }) as RequestHandler;
}
