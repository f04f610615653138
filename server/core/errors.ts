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
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
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

/** Base of the storage layer's errors (storage/errors.ts): a code of the catalog, no HTTP.
 *  toApiError maps them; defined here so that core needs nothing from the layers after it. */
export class StorageFailure extends Error {
  constructor(readonly code: ErrorCode, message: string, readonly details?: Record<string, unknown>) {
    super(message);
    this.name = new.target.name;
  }
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
  const apiError = toApiError(err);
  if (apiError.status === 500) {
    const requestId = randomUUID();
    logger.error({ err, requestId, method: req.method, path: req.path }, 'unhandled error');
    apiError.details!.requestId = requestId;
  }
  if (res.headersSent) { res.destroy(); return; }
  if (apiError.headers) res.set(apiError.headers);
  res.status(apiError.status).json(apiError.toBody());
};

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof StorageFailure) return fromStorage(err);
  // A raw file-system error of a full or unwritable disk met outside the stores (which throw
  // their own StorageError, storage/errors.ts): 507 / 503, never 500.
  const errno = (err as NodeJS.ErrnoException | undefined)?.code;
  if (errno === 'ENOSPC' || errno === 'EDQUOT') return new ApiError('INSUFFICIENT_STORAGE', 'The disk holding the data folder is full: the change was not saved. Free some space; writes resume by themselves.');
  if (errno === 'EROFS' || errno === 'EACCES' || errno === 'EPERM') {
    return new ApiError('UNAVAILABLE', `The data folder cannot be written (${errno}): the change was not saved. Make it writable by the server's user; writes resume by themselves.`, {}, { 'Retry-After': '5' });
  }
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

function fromStorage(err: StorageFailure): ApiError {
  const details = err.details ?? {};
  switch (err.code) {
    case 'UNAVAILABLE': return ApiError.unavailable(err.message);
    case 'RATE_LIMITED': return ApiError.rateLimited(Number(details.retryAfter) || 1);
    case 'VALIDATION_ERROR': return ApiError.invalidField(String(details.field ?? ''), (details.reason as ValidationReason | undefined) ?? 'invalid', err.message);
    default: return new ApiError(err.code, err.message, err.details);
  }
}
