// Keeps the error catalog, the contract's table and docs/errors.md in step.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { ERROR_STATUS, VALIDATION_REASONS } from '../shared/error-codes.js';
import { ApiError, toApiError } from './errors.js';

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
});
