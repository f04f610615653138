// The kept totals of PostgreSQL lists (count-cache.ts) are bounded by what they hold, not only by
// how many they are: a total is kept under its count query's text and values, and a list's
// filter values may be large (GraphQL's 1 MiB body), so 10,000 of them could pin gigabytes.
import { describe, expect, it } from 'vitest';
import { CountCache, MAX_COUNT_KEY_CHARS, MAX_COUNTS_CHARS } from './count-cache.js';

describe('CountCache', () => {
  it('keeps totals of small keys, and forgets a table\'s on a write', () => {
    const c = new CountCache();
    c.set('t1', 'a', 3, c.stamp('t1'));
    c.set('t2', 'b', 4, c.stamp('t2'));
    expect([c.get('t1', 'a'), c.get('t2', 'b'), c.kept]).toEqual([3, 4, 2]);
    c.written('t1');
    expect([c.get('t1', 'a'), c.get('t2', 'b'), c.kept]).toEqual([undefined, 4, 1]);
  });

  it('holds at most MAX_COUNTS_CHARS characters of keys, the oldest forgotten first', () => {
    const c = new CountCache();
    const key = (i: number) => `${String(i).padStart(6, '0')}${'v'.repeat(MAX_COUNT_KEY_CHARS - 6)}`;
    const n = Math.ceil((3 * MAX_COUNTS_CHARS) / MAX_COUNT_KEY_CHARS);
    for (let i = 0; i < n; i++) c.set('t', key(i), i, c.stamp('t'));
    expect(c.kept).toBeLessThanOrEqual(Math.floor(MAX_COUNTS_CHARS / MAX_COUNT_KEY_CHARS));
    expect(c.kept).toBeGreaterThan(0);
    expect(c.get('t', key(n - 1))).toBe(n - 1);
    expect(c.get('t', key(0))).toBeUndefined();
    c.written('t');
    expect(c.kept).toBe(0);
    // The budget is whole again after the table's totals went.
    for (let i = 0; i < 3; i++) c.set('t', key(i), i, c.stamp('t'));
    expect(c.kept).toBe(3);
  });

  it('keeps no total of a key longer than MAX_COUNT_KEY_CHARS (it would push out the others)', () => {
    const c = new CountCache();
    c.set('t', 'small', 1, c.stamp('t'));
    c.set('t', 'x'.repeat(MAX_COUNT_KEY_CHARS + 1), 2, c.stamp('t'));
    expect(c.get('t', 'x'.repeat(MAX_COUNT_KEY_CHARS + 1))).toBeUndefined();
    expect([c.get('t', 'small'), c.kept]).toEqual([1, 1]);
  });
});
