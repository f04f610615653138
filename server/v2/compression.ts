// brotli or gzip for v2 answers over 1 KiB, as the client's Accept-Encoding asks (the
// `compression` package; it adds `Vary: Accept-Encoding`). Downloads and tus uploads are left
// as they are: their bytes, lengths and ranges are the file's.
import compression from 'compression';
import { constants } from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';

const UNTOUCHED = /^\/api\/v2\/app\/[^/]+\/storage\/(?:upload\/tus(?:\/|$)|[^/]+\/download\/?$)/;

export function v2Compression(): RequestHandler {
  return compression({
    threshold: 1024,
    // Quality 2 of 11: most of brotli's gain on JSON for a fraction of the CPU of the package's
    // default (4), which cost the server more than twice an uncompressed list of 50.
    brotli: { params: { [constants.BROTLI_PARAM_QUALITY]: 2 } },
    filter: (req: Request, res: Response) => !UNTOUCHED.test(req.originalUrl.split('?')[0]) && compression.filter(req, res),
  }) as RequestHandler;
}
