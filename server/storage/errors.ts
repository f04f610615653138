// The storage layer's own errors: a write the disk refused, a store that cannot load. They are
// errors of the one error type (core/errors.ts), so the central error handler answers them with
// the contract's 507 INSUFFICIENT_STORAGE and 503 UNAVAILABLE; the message names the folder and
// what to do. A write that failed with one of them was not applied (docs/storage-layout.md).
import { dirname } from 'node:path';
import { ApiError, StorageFailure } from '../core/errors.js';
import type { ValidationReason } from '../shared/error-codes.js';

/** Base class: something about the data folder stops reads or writes. */
export class StorageError extends ApiError {
  constructor(code: 'INSUFFICIENT_STORAGE' | 'UNAVAILABLE', message: string, readonly folder: string | undefined, readonly errno: string | undefined) {
    super(code, message, folder ? { folder } : {}, code === 'UNAVAILABLE' ? { 'Retry-After': '5' } : undefined);
  }
}

/** The disk is full (ENOSPC, EDQUOT): the write was not applied; reads still work. */
export class StorageFullError extends StorageError {
  constructor(folder: string | undefined, errno?: string) {
    super('INSUFFICIENT_STORAGE', `The disk holding ${folder ?? 'the data folder'} is full: the change was not saved. Free some space; writes resume by themselves.`, folder, errno);
  }
}

/** The folder cannot be written (read-only, permissions), has vanished, or a store cannot load. */
export class StorageUnavailableError extends StorageError {
  constructor(message: string, folder?: string, errno?: string) {
    super('UNAVAILABLE', message, folder, errno);
  }
}

const FULL = new Set(['ENOSPC', 'EDQUOT']);
const DENIED = new Set(['EROFS', 'EPERM', 'EACCES']);
const GONE = new Set(['ENOENT', 'ENOTDIR', 'EIO']);

/** Turns a file-system error met while writing `path` into a storage error (others unchanged). */
export function toStorageError(err: unknown, path: string | undefined): unknown {
  if (err instanceof StorageError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (!code) return err;
  const folder = path && dirname(path);
  if (FULL.has(code)) return new StorageFullError(folder, code);
  if (DENIED.has(code)) {
    return new StorageUnavailableError(`The folder ${folder ?? 'of the data'} cannot be written (${code}${code === 'EROFS' ? ': read-only file system' : ': permission denied'}): the change was not saved. Make it writable by the server's user; writes resume by themselves.`, folder, code);
  }
  if (GONE.has(code)) {
    return new StorageUnavailableError(`The folder ${folder ?? 'of the data'} cannot be written (${code}): the change was not saved. Check that the data folder is still there and its disk is attached.`, folder, code);
  }
  return err;
}

/** Runs a write; a file-system failure becomes a storage error naming `path`'s folder. */
export async function guardWrite<T>(path: string | undefined, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw toStorageError(err, path);
  }
}

// Failures of the stores themselves (closed, missing, unique index, unstorable value): they
// name a code of the shared catalog and carry no HTTP; the one error handler (core/errors.ts
// toApiError) maps them. Modules that want their own wording catch the class (a unique
// violation becomes "a user with this email already exists").

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
