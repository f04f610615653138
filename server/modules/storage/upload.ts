// Receives a simple (multipart) upload: the first part named `file` is streamed by busboy to a
// temporary file, never held in memory; other parts (fields, further file parts such as a
// `thumb` before it) are read and discarded, never written. Over the limit or on any failure
// nothing is left behind.
import busboy from 'busboy';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import { ApiError, diskFailure, toApiError } from '../../core/errors.js';
import { newFileStream } from '../../storage/disk.js';
import { newId } from '../../core/ids.js';
import { tooLargeError } from '../../core/http.js';

export interface ReceivedFile {
  /** The complete bytes, in the workspace's incoming folder; the caller moves or removes it. */
  tempPath: string;
  /** As the client sent them; to be cleaned before they are stored. */
  filename: string | undefined;
  mimeType: string | undefined;
  size: number;
}

/** Room for the multipart framing and small fields around the file itself. */
const FRAMING_ALLOWANCE = 64 * 1024;
/** File parts read per body: the first named `file` is kept, the others are drained. */
const MAX_FILE_PARTS = 20;

export function tooLarge(limit: number): ApiError {
  return tooLargeError('The file', limit, { flag: '--upload-limit', option: 'uploadLimit' }, ', or send large files with the resumable (tus) upload at /storage/upload/tus');
}

/** Reads a multipart body; resolves once the `file` part is on disk and the body is complete. */
export function receiveFile(req: Request, incomingDir: string, limit: number): Promise<ReceivedFile> {
  return new Promise<ReceivedFile>((resolve, reject) => {
    if (!req.is('multipart/form-data')) {
      req.resume();
      return reject(ApiError.unsupportedMediaType('Content-Type must be multipart/form-data with a part named "file"'));
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit + FRAMING_ALLOWANCE) {
      req.resume(); // read and discard, so that the client gets the answer rather than a reset
      return reject(tooLarge(limit));
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { fileSize: limit, files: MAX_FILE_PARTS, fields: 100, fieldSize: 64 * 1024, parts: 200, headerPairs: 100 },
      });
    } catch {
      req.resume();
      return reject(ApiError.badRequest('Malformed multipart body (no boundary)'));
    }

    let tempPath: string | undefined;
    let writing: Promise<void> | undefined;
    let part: NodeJS.ReadableStream & { destroy(error?: Error): void } | undefined;
    let filename: string | undefined;
    let mimeType: string | undefined;
    let size = 0;
    let settled = false;

    const fail = (err: ApiError) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      req.resume();
      // Ends the writer: the parser will not see the rest of the part any more. With an error:
      // a busboy part destroyed without one never settles the pipeline, so the writer stayed
      // open and the .part file was never removed (an over-limit upload left it behind).
      part?.destroy(new Error('upload abandoned'));
      // Remove the temporary file only once its writer has closed, so it cannot be re-created.
      if (tempPath) {
        const path = tempPath;
        void (writing ?? Promise.resolve()).catch(() => undefined).then(() => rm(path, { force: true }));
      }
      reject(err);
    };

    parser.on('file', (field, stream, info) => {
      // Not the file (or a second one): drained without touching the disk.
      if (field !== 'file' || tempPath || settled) { stream.resume(); return; }
      tempPath = join(incomingDir, `${newId()}.part`);
      part = stream;
      filename = info.filename;
      mimeType = info.mimeType;
      stream.on('limit', () => fail(tooLarge(limit)));
      const out = newFileStream(tempPath);
      writing = pipeline(stream, out).then(() => { size = 'bytesWritten' in out ? out.bytesWritten : 0; });
      // A folder that cannot be written (read-only, no permission, gone) or a full disk answers
      // as every other write does (503 / 507, naming the folder); anything else is the client's
      // body breaking off.
      writing.catch((err: unknown) => {
        const disk = diskFailure(err, incomingDir, true);
        fail(disk ? toApiError(disk) : ApiError.badRequest('The upload was interrupted'));
      });
    });
    parser.on('error', () => fail(ApiError.badRequest('Malformed multipart body')));
    parser.on('close', () => {
      if (settled) return;
      if (!tempPath || !writing) return fail(ApiError.invalidField('file', 'required', "A multipart part named 'file' is required"));
      const path = tempPath;
      writing.then(() => {
        if (settled) return;
        settled = true;
        resolve({ tempPath: path, filename, mimeType, size });
      }, () => undefined);
    });
    req.on('close', () => { if (!req.complete) fail(ApiError.badRequest('The upload was interrupted')); });
    // A body without a declared length gets the same bound as a declared one: the whole body,
    // ignored parts included, may not pass the limit plus the framing allowance.
    if (!Number.isFinite(declared)) {
      let received = 0;
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > limit + FRAMING_ALLOWANCE) fail(tooLarge(limit));
      });
    }
    req.pipe(parser);
  });
}
