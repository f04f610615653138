// Keeps the error catalog, the contract's table and docs/errors.md in step.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { ERROR_STATUS, VALIDATION_REASONS } from '../shared/error-codes.js';
import { ApiError, publicError, toApiError } from './errors.js';
import { StorageUnavailableError, StoreUnavailableError, toStorageError, UniqueViolationError } from '../storage/errors.js';

describe('error catalog', () => {
  it('documents every code with its status', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(doc).toMatch(new RegExp(`\\| ${status} \\| \`${code}\` \\|`));
    }
    for (const reason of VALIDATION_REASONS) expect(doc).toContain(`\`${reason}\``);
  });

  it('builds validation errors with the first field and the whole list', () => {
    const err = ApiError.validation([{ field: 'email', reason: 'required' }, { field: 'age', reason: 'type' }]);
    expect(err.status).toBe(422);
    expect(err.toBody().error.details).toEqual({ field: 'email', reason: 'required', errors: [{ field: 'email', reason: 'required' }, { field: 'age', reason: 'type' }] });
  });

  it('never turns an unknown failure into anything but a bare 500', () => {
    const err = toApiError(new Error('ENOENT: /secret/path/file'));
    expect(err.status).toBe(500);
    expect(JSON.stringify(err.toBody())).not.toContain('/secret/path');
  });

  it('masks a 500 in one place: a fresh request id, the message hidden', () => {
    const a = publicError(new Error('boom at /secret/path'));
    const b = publicError(new Error('boom at /secret/path'));
    expect(a.toBody()).toEqual({ error: { code: 'INTERNAL', message: 'Internal server error', details: { requestId: expect.any(String) } } });
    expect(a.details!.requestId).not.toBe(b.details!.requestId);
    expect(publicError(ApiError.notFound('User', 'x')).status).toBe(404);
  });
});

describe('storage errors, mapped by the one error handler', () => {
  const errno = (code: string) => Object.assign(new Error(`${code}: /data/ws/notes.db`), { code });

  it('a full disk is 507 naming the folder, whether met in a store or outside one', () => {
    const inStore = toApiError(toStorageError(errno('ENOSPC'), '/data/ws/notes.db'));
    expect([inStore.status, inStore.code, inStore.details]).toEqual([507, 'INSUFFICIENT_STORAGE', { folder: '/data/ws' }]);
    const raw = toApiError(errno('EDQUOT'));
    expect([raw.status, raw.details]).toEqual([507, {}]);
  });

  it('an unwritable folder is 503 with Retry-After 5; a store being restored 503 with Retry-After 1', () => {
    for (const code of ['EROFS', 'EPERM', 'EACCES']) {
      const e = toApiError(toStorageError(errno(code), '/data/ws/notes.db'));
      expect([e.status, e.headers, e.message]).toEqual([503, { 'Retry-After': '5' }, expect.stringContaining(code)]);
    }
    expect(toApiError(new StorageUnavailableError('cannot load', '/data/ws')).headers).toEqual({ 'Retry-After': '5' });
    expect(toApiError(new StoreUnavailableError()).headers).toEqual({ 'Retry-After': '1' });
  });

  it('a vanished folder is 503 while writing, but a raw ENOENT elsewhere stays a masked 500', () => {
    expect(toApiError(toStorageError(errno('ENOENT'), '/data/ws/notes.db')).status).toBe(503);
    expect(toApiError(errno('ENOENT')).status).toBe(500);
  });

  it('the store failures keep their catalog code', () => {
    expect(toApiError(new UniqueViolationError()).toBody().error.code).toBe('CONFLICT');
  });
});
