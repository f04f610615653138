import { describe, expect, it, vi } from 'vitest';
import { tmpdir } from 'node:os';
import { freeBytes, watchDiskSpace } from './disk-space.js';

const MB = 1024 * 1024;

describe('disk space watch', () => {
  it('warns once when space runs low, again only after it came back', async () => {
    let free = 500 * MB;
    const warnings: number[] = [];
    const stop = watchDiskSpace('/data', (b) => warnings.push(b), { free: async () => free, every: 10, threshold: 200 * MB });
    await vi.waitFor(() => expect(warnings).toEqual([]));
    free = 100 * MB;
    await vi.waitFor(() => expect(warnings).toEqual([100 * MB]));
    await new Promise((r) => setTimeout(r, 50));
    expect(warnings).toHaveLength(1); // not every check
    free = 400 * MB;
    await new Promise((r) => setTimeout(r, 50));
    free = 50 * MB;
    await vi.waitFor(() => expect(warnings).toEqual([100 * MB, 50 * MB]));
    stop();
  });

  it('an unreadable folder is no warning', async () => {
    const onLow = vi.fn();
    const stop = watchDiskSpace('/gone', onLow, { free: async () => { throw Object.assign(new Error('x'), { code: 'ENOENT' }); }, every: 10 });
    await new Promise((r) => setTimeout(r, 50));
    expect(onLow).not.toHaveBeenCalled();
    stop();
  });

  it('reads the real free space', async () => {
    expect(await freeBytes(tmpdir())).toBeGreaterThan(0);
  });
});
