// The storage layer's own errors: a write the disk refused, a store that cannot load or cannot
// take requests, a unique index, a value it cannot hold. They carry a code of the shared catalog
// and no HTTP (core/errors.ts StorageFailure); the one error handler (core/errors.ts toApiError)
// maps them to the contract's error shape: 507 INSUFFICIENT_STORAGE, 503 UNAVAILABLE with a
// Retry-After, 404, 409, 422, 429. A write that failed with one of them was not applied
// (docs/storage-layout.md). Modules that want their own wording catch the class (a unique
// violation becomes "a user with this email already exists").
import { dirname } from 'node:path';
import { diskFailure, StorageFailure } from '../core/errors.js';
import type { ValidationReason } from '../shared/error-codes.js';

/** A store cannot load (a corrupt file, permissions): 503, tried again after `retryAfter` seconds. */
export class StorageUnavailableError extends StorageFailure {
  constructor(message: string, folder?: string) {
    super('UNAVAILABLE', message, folder ? { folder } : {}, 5);
  }
}

/** Turns a file-system error met while writing `path` into a storage error naming its folder
 *  (507 full, 503 unwritable or gone: core/errors.ts diskFailure); others unchanged. */
export function toStorageError(err: unknown, path: string | undefined): unknown {
  if (err instanceof StorageFailure) return err;
  return diskFailure(err, path && dirname(path), true) ?? err;
}

/** The store cannot take requests now (closed, busy being restored, database unreachable). */
export class StoreUnavailableError extends StorageFailure {
  constructor(message = 'The workspace is being restored or imported, retry shortly') { super('UNAVAILABLE', message); }
}

/** A workspace (or another stored thing the caller named) does not exist. */
export class NotFoundError extends StorageFailure {
  constructor(what: string, id: string) { super('NOT_FOUND', `${what} '${id}' not found`); }
}

/** A write would break a unique index, or create what already exists. */
export class UniqueViolationError extends StorageFailure {
  constructor(message = 'A unique constraint was violated', details?: Record<string, unknown>) { super('CONFLICT', message, details); }
}

/** A value the store cannot hold (a key name, a byte, a size). */
export class UnstorableValueError extends StorageFailure {
  constructor(field: string, reason: ValidationReason, message: string) { super('VALIDATION_ERROR', message, { field, reason }); }
}

/** Too many attempts (the failed-login limit shared by several processes); retry after some seconds. */
export class RateLimitedError extends StorageFailure {
  constructor(readonly retryAfter: number) { super('RATE_LIMITED', 'Too many attempts, try again later', { retryAfter }); }
}
