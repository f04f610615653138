// The console offers exactly the scopes the server knows, in its order.
import { describe, expect, it } from 'vitest';
import { API_KEY_SCOPES as SERVER } from '../../../../server/modules/api-keys/scopes';
import { API_KEY_SCOPES } from './scopes';

describe('API key scopes of the console', () => {
  it('are the server\'s', () => {
    expect(API_KEY_SCOPES.map((s) => s.scope)).toEqual([...SERVER]);
  });
});
