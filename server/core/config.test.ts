// Options of createServer / startServer: bad values are refused with a message naming them, and
// a bcrypt cost below 10 only in a test run or when asked for by name.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, resolveConfig } from './config.js';
import { startServer } from '../index.js';

afterEach(() => { vi.unstubAllEnvs(); });

const outsideTests = () => { vi.stubEnv('VITEST', ''); vi.stubEnv('NODE_ENV', 'production'); };

describe('bcryptCost', () => {
  it('refuses a cost below 10 outside a test run', async () => {
    outsideTests();
    expect(() => resolveConfig({ bcryptCost: 4 })).toThrow(ConfigError);
    expect(() => resolveConfig({ bcryptCost: 9 })).toThrow(/bcryptCost 9 is below 10/);
    await expect(startServer({ port: 0, inMemory: true, bcryptCost: 4 })).rejects.toThrow(ConfigError);
    expect(resolveConfig({ bcryptCost: 10 }).bcryptCost).toBe(10);
    expect(resolveConfig({}).bcryptCost).toBe(10);
  });

  it('allows it in a test run (VITEST or NODE_ENV=test) or with allowInsecureBcryptCost', () => {
    expect(resolveConfig({ bcryptCost: 4 }).bcryptCost).toBe(4); // this is a Vitest run
    outsideTests();
    expect(resolveConfig({ bcryptCost: 4, allowInsecureBcryptCost: true }).bcryptCost).toBe(4);
    vi.stubEnv('NODE_ENV', 'test');
    expect(resolveConfig({ bcryptCost: 5 }).bcryptCost).toBe(5);
  });

  it('refuses costs bcrypt cannot use, even in tests', () => {
    expect(() => resolveConfig({ bcryptCost: 3 })).toThrow(/bcryptCost must be an integer from 4 to 31/);
    expect(() => resolveConfig({ bcryptCost: 32 })).toThrow(ConfigError);
    expect(() => resolveConfig({ bcryptCost: 10.5 })).toThrow(ConfigError);
  });
});

describe('other options', () => {
  it('names the bad option', () => {
    expect(() => resolveConfig({ loginRateLimit: -1 })).toThrow(/loginRateLimit/);
    expect(() => resolveConfig({ webhookRetryDelays: [1000, -5] })).toThrow(/webhookRetryDelays\[1\]/);
    expect(() => resolveConfig({ webhookTimeout: 0 })).toThrow(/webhookTimeout/);
    expect(() => resolveConfig({ jsonLimit: Number.NaN })).toThrow(/jsonLimit/);
    expect(() => resolveConfig({ uploadLimit: 0 })).toThrow(/uploadLimit/);
    expect(() => resolveConfig({ port: 70000 })).toThrow(/port/);
  });

  it('takes loginRateLimit 0 as off', () => {
    expect(resolveConfig({ loginRateLimit: 0 }).loginRateLimit).toBe(false);
    expect(resolveConfig({ loginRateLimit: false }).loginRateLimit).toBe(false);
    expect(resolveConfig({}).loginRateLimit).toBe(10);
    expect(resolveConfig({ webhookRetryDelays: [] }).webhookRetryDelays).toEqual([]);
  });
});
