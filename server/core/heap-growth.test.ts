// The heap growing factor: what the server sets, that a bad value is refused, and that setting it
// while the process runs bounds the heap V8 commits.
import { afterEach, describe, expect, it, vi } from 'vitest';
import v8 from 'node:v8';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { ConfigError, resolveConfig } from './config.js';
import { startTestServer } from '../test/harness.js';

const run = promisify(execFile);

afterEach(() => { vi.restoreAllMocks(); delete process.env.HOMEBASE_HEAP_GROWING_PERCENT; });

describe('heap growing factor', () => {
  it('is 50 % unless told otherwise; the option, then the environment, decide; bad values are refused', () => {
    expect(resolveConfig({ inMemory: true }).heapGrowingPercent).toBe(40);
    process.env.HOMEBASE_HEAP_GROWING_PERCENT = '30';
    expect(resolveConfig({ inMemory: true }).heapGrowingPercent).toBe(30);
    expect(resolveConfig({ inMemory: true, heapGrowingPercent: 0 }).heapGrowingPercent).toBe(0);
    process.env.HOMEBASE_HEAP_GROWING_PERCENT = 'lots';
    expect(() => resolveConfig({ inMemory: true })).toThrow(/HOMEBASE_HEAP_GROWING_PERCENT must be an integer from 0 to 1000/);
    expect(() => resolveConfig({ inMemory: true, heapGrowingPercent: -1 })).toThrow(ConfigError);
    expect(() => resolveConfig({ inMemory: true, heapGrowingPercent: 2.5 })).toThrow(/heapGrowingPercent/);
  });

  it('is set on V8 when a server is created, and left alone with 0', async () => {
    const set = vi.spyOn(v8, 'setFlagsFromString');
    const s = await startTestServer({ heapGrowingPercent: 37 });
    await s.close();
    expect(set).toHaveBeenCalledWith('--heap-growing-percent=37');
    set.mockClear();
    const s0 = await startTestServer({ heapGrowingPercent: 0 });
    await s0.close();
    expect(set).not.toHaveBeenCalled();
  });

  it('set while the process runs, keeps the committed heap of a steady churn far below V8\'s own choice', async () => {
    const fixture = join(import.meta.dirname, 'heap-growth.fixture.ts');
    const peak = async (percent: number) => {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', fixture, String(percent)], { cwd: join(import.meta.dirname, '..', '..') });
      return JSON.parse(stdout) as { peakMb: number; live: number };
    };
    const [own, bounded] = await Promise.all([peak(0), peak(50)]);
    expect(own.live).toBe(200_000);
    expect(bounded.live).toBe(200_000);
    // Measured 229 MB against 118 MB: V8's own factor lets the old generation double and more.
    expect(bounded.peakMb).toBeLessThan(own.peakMb * 0.75);
  }, 120_000);
});
