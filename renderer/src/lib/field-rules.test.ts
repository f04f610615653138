import { describe, expect, it } from 'vitest';
import { ruleError } from './field-rules';
import type { FieldDef } from '../../../server/shared/models';

const f = (type: FieldDef['type'], extra: Partial<FieldDef> = {}): FieldDef => ({ _id: 'x', name: 'x', type, createdAt: '', updatedAt: '', ...extra });

describe('field rules in the browser', () => {
  it('checks required, type, range, length, enum and forms as the server does', () => {
    expect(ruleError(f('string', { required: true }), null)).toBe("'x' is required");
    expect(ruleError(f('string'), null)).toBeNull();
    expect(ruleError(f('integer', { options: { min: 1, max: 5 } }), 9)).toBe("'x' must be an integer from 1 to 5");
    expect(ruleError(f('integer'), 1.5)).toBe("'x' must be an integer");
    expect(ruleError(f('number', { options: { min: 0 } }), -1)).toBe("'x' must be a number of at least 0");
    expect(ruleError(f('string', { options: { maxLength: 3 } }), 'abcd')).toBe("'x' must be at most 3 characters");
    expect(ruleError(f('enum', { options: { values: ['a', 'b'] } }), 'c')).toBe("'x' must be one of a, b");
    expect(ruleError(f('email'), 'nope')).toMatch(/email/);
    expect(ruleError(f('url'), 'example.com')).toMatch(/URL/);
    expect(ruleError(f('url'), 'https://example.com')).toBeNull();
    expect(ruleError(f('date'), 'soon')).toMatch(/date/);
  });
});
