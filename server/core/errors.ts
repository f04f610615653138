// The one error type of the server, its constructors, and the Express error handler.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ERROR_STATUS, type ErrorCode, type FieldError, type ValidationReason } from '../shared/error-codes.js';
import { logger } from './logger.js';
import { randomUUID } from 'node:crypto';
import { describeErrors } from './validation-messages.js';

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
    status?: number,
  ) {
    super(message);
    this.status = status ?? ERROR_STATUS[code];
  }

  /** The contract's body; `details` is always an object, so a client may read `details.field` safely. */
  toBody() {
    return { error: { code: this.code, message: this.message, details: this.details ?? {} } };
  }

  static badRequest(message: string, details?: Record<string, unknown>) { return new ApiError('BAD_REQUEST', message, details); }
  static unauthorized(message = 'Authentication required') { return new ApiError('UNAUTHORIZED', message); }
  static forbidden(message = 'Insufficient rights') { return new ApiError('FORBIDDEN', message); }
  static notFound(what = 'Resource', id?: string) {
    return new ApiError('NOT_FOUND', id === undefined ? `${what} not found` : `${what} '${id}' not found`);
  }
  static conflict(message: string, details?: Record<string, unknown>) { return new ApiError('CONFLICT', message, details); }
  static tooLarge(message = 'Request body too large') { return new ApiError('PAYLOAD_TOO_LARGE', message); }
  static unsupportedMediaType(message = 'Content-Type must be application/json') { return new ApiError('UNSUPPORTED_MEDIA_TYPE', message); }
  static rateLimited(retryAfterSeconds: number) {
    return new ApiError('RATE_LIMITED', 'Too many attempts, try again later', { retryAfter: retryAfterSeconds },
      { 'Retry-After': String(retryAfterSeconds) });
  }
  static unavailable(message = 'The workspace is being restored or imported, retry shortly') { return new ApiError('UNAVAILABLE', message, undefined, { 'Retry-After': '1' }); }

  /** A fault rule of the workspace answered this request with `status` (a test suite set it). */
  static injectedFault(status: number, rule: number) {
    return new ApiError('INJECTED_FAULT', `Injected fault: rule ${rule} of this workspace's faults answered ${status}`, { rule }, undefined, status);
  }

  /** 422 for one field, or several: details carry the first one plus the whole list. */
  static validation(errors: FieldError[] | FieldError, message?: string) {
    const list = Array.isArray(errors) ? errors : [errors];
    const first = list[0];
    return new ApiError('VALIDATION_ERROR', message ?? describeErrors(list), {
      field: first.field,
      reason: first.reason,
      errors: list.map(({ field, reason, message: m }) => ({ field, reason, ...(m ? { message: m } : {}) })),
    });
  }
  static invalidField(field: string, reason: ValidationReason, message?: string) {
    return ApiError.validation({ field, reason, message });
  }
}

/** Base of the storage layer's errors (storage/errors.ts): a code of the catalog, details, and
 *  for a 503 how soon to retry; no HTTP. toApiError maps them; defined here so that core needs
 *  nothing from the layers after it. */
export class StorageFailure extends Error {
  constructor(readonly code: ErrorCode, message: string, readonly details?: Record<string, unknown>, readonly retryAfter?: number) {
    super(message);
    this.name = new.target.name;
  }
}

const DISK_FULL = new Set(['ENOSPC', 'EDQUOT']);
const DISK_DENIED = new Set(['EROFS', 'EPERM', 'EACCES']);
const DISK_GONE = new Set(['ENOENT', 'ENOTDIR', 'EIO']);

/** The one rule for what a file-system error means to a client: a full disk is 507, a folder
 *  that cannot be written 503 (retry in 5 s); with `writing`, a folder gone or a failing disk too
 *  (outside a write, ENOENT is just a missing file). The message names the folder and what to
 *  do. Anything else: undefined. Storage wraps every write with it (storage/errors.ts); the
 *  error handler applies it to a raw error met outside the stores (an upload's temporary file). */
export function diskFailure(err: unknown, folder: string | undefined, writing: boolean): StorageFailure | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (!code) return undefined;
  const where = folder ? `The folder ${folder}` : 'The data folder';
  const details = folder ? { folder } : {};
  if (DISK_FULL.has(code)) {
    return new StorageFailure('INSUFFICIENT_STORAGE', `The disk holding ${folder ?? 'the data folder'} is full: the change was not saved. Free some space; writes resume by themselves.`, details);
  }
  if (DISK_DENIED.has(code)) {
    return new StorageFailure('UNAVAILABLE', `${where} cannot be written (${code}${code === 'EROFS' ? ': read-only file system' : ': permission denied'}): the change was not saved. Make it writable by the server's user; writes resume by themselves.`, details, 5);
  }
  if (writing && DISK_GONE.has(code)) {
    return new StorageFailure('UNAVAILABLE', `${where} cannot be written (${code}): the change was not saved. Check that the data folder is still there and its disk is attached.`, details, 5);
  }
  return undefined;
}

/** Last handler for unmatched routes; names the full path asked for. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(noRoute(req.method, req.originalUrl));
};

export function noRoute(method: string, url: string, hint = ''): ApiError {
  const path = url.split('?')[0];
  return new ApiError('NOT_FOUND', `No route for ${method} ${path}${hint}`);
}

/** Turns anything thrown into the contract's error body; never a stack trace or a path. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const apiError = publicError(err, { method: req.method, path: req.path });
  if (res.headersSent) { res.destroy(); return; }
  if (apiError.headers) res.set(apiError.headers);
  res.status(apiError.status).json(apiError.toBody());
};

/** What a client may be told of anything thrown, the one place a 500 is masked: an unexpected
 *  error is logged with a fresh request id (and `context`), and the client gets only that id.
 *  Every way an error leaves the server goes through here: the HTTP error handler, a refused
 *  WebSocket upgrade, a realtime error frame, a tus upload. */
export function publicError(err: unknown, context: Record<string, unknown> = {}, what = 'unhandled error'): ApiError {
  const apiError = toApiError(err);
  if (apiError.code !== 'INTERNAL') return apiError;
  const requestId = randomUUID();
  logger.error({ err, requestId, ...context }, what);
  return new ApiError('INTERNAL', 'Internal server error', { requestId });
}

/** Maps anything thrown to the one error type; unknown failures become a bare INTERNAL (callers
 *  that answer a client go through publicError, which logs it). */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof StorageFailure) return fromStorage(err);
  // A raw file-system error of a full or unwritable disk met outside the stores: 507 / 503.
  const disk = diskFailure(err, undefined, false);
  if (disk) return fromStorage(disk);
  const e = err as { type?: string; status?: number; statusCode?: number; errorType?: string; key?: unknown; limit?: number } | undefined;
  // body-parser / raw-body errors
  if (e?.type === 'entity.too.large') return ApiError.tooLarge(`The request body is over the ${String(e.limit ?? '')}-byte limit`);
  if (e?.type === 'entity.parse.failed') return ApiError.badRequest('Request body is not valid JSON');
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') return ApiError.unsupportedMediaType('Unsupported body encoding');
  if (e?.type === 'request.aborted') return ApiError.badRequest('Request aborted');
  // Express could not decode a path parameter (`/users/%ZZ`).
  if (err instanceof URIError) return ApiError.badRequest('The path holds malformed percent-encoding');
  if (e?.errorType === 'uniqueViolated') return ApiError.conflict('A unique constraint was violated', { key: e.key as string });
  const status = e?.status ?? e?.statusCode;
  if (status && status >= 400 && status < 500) return new ApiError('BAD_REQUEST', 'Bad request');
  return new ApiError('INTERNAL', 'Internal server error', {});
}

/** The storage layer's failures in the contract's shape: the code's status, its details, and a
 *  Retry-After on a 503 (the failure's own, else 1 s). */
function fromStorage(err: StorageFailure): ApiError {
  const details = err.details ?? {};
  switch (err.code) {
    case 'UNAVAILABLE': return new ApiError('UNAVAILABLE', err.message, err.details, { 'Retry-After': String(err.retryAfter ?? 1) });
    case 'RATE_LIMITED': return ApiError.rateLimited(Number(details.retryAfter) || 1);
    case 'VALIDATION_ERROR': return ApiError.invalidField(String(details.field ?? ''), (details.reason as ValidationReason | undefined) ?? 'invalid', err.message);
    default: return new ApiError(err.code, err.message, err.details);
  }
}
