import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tmpdir } from 'node:os';
import { freeBytes, watchDiskSpace } from './disk-space.js';

const MB = 1024 * 1024;

describe('disk space watch', () => {
  // Checks come on a timer: fake timers count them exactly instead of waiting for them.
  beforeEach(() => { vi.useFakeTimers(); });
  afterEach(() => { vi.useRealTimers(); });

  it('warns once when space runs low, again only after it came back', async () => {
    let free = 500 * MB;
    let checks = 0;
    const warnings: number[] = [];
    const stop = watchDiskSpace('/data', (b) => warnings.push(b), { free: async () => { checks++; return free; }, every: 10, threshold: 200 * MB });
    await vi.advanceTimersByTimeAsync(0); // the check at start
    expect(checks).toBe(1);
    expect(warnings).toEqual([]);
    free = 100 * MB;
    await vi.advanceTimersByTimeAsync(10);
    expect(warnings).toEqual([100 * MB]);
    await vi.advanceTimersByTimeAsync(50); // five more checks, still low
    expect(checks).toBe(7);
    expect(warnings).toHaveLength(1); // not every check
    free = 400 * MB;
    await vi.advanceTimersByTimeAsync(10); // back above 1.5 × the threshold: re-armed
    free = 50 * MB;
    await vi.advanceTimersByTimeAsync(10);
    expect(warnings).toEqual([100 * MB, 50 * MB]);
    stop();
    await vi.advanceTimersByTimeAsync(100);
    expect(checks).toBe(9); // none after stop
  });

  it('an unreadable folder is no warning', async () => {
    const onLow = vi.fn();
    let checks = 0;
    const stop = watchDiskSpace('/gone', onLow, { free: async () => { checks++; throw Object.assign(new Error('x'), { code: 'ENOENT' }); }, every: 10 });
    await vi.advanceTimersByTimeAsync(50);
    expect(checks).toBe(6);
    expect(onLow).not.toHaveBeenCalled();
    stop();
  });

  it('reads the real free space', async () => {
    expect(await freeBytes(tmpdir())).toBeGreaterThan(0);
  });
});
