// Generated ids (newId): the shape every client-given id must also have, never repeated, and
// characters drawn evenly from the alphabet (the random bytes come from a pool: none is used twice).
import { describe, expect, it } from 'vitest';
import { ID_PATTERN, newId } from './ids.js';

describe('newId', () => {
  it('makes ids of the asked length that match the id pattern, a letter first', () => {
    for (const length of [16, 24, 40]) {
      for (let i = 0; i < 2_000; i++) {
        const id = newId(length);
        expect(id).toHaveLength(length);
        expect(id).toMatch(/^[A-Za-z][A-Za-z0-9]*$/);
        expect(ID_PATTERN.test(id)).toBe(true);
      }
    }
  });

  it('never repeats, across many pools of random bytes, and spreads its characters evenly', () => {
    const ids = Array.from({ length: 50_000 }, () => newId());
    expect(new Set(ids).size).toBe(ids.length);
    const counts = new Map<string, number>();
    for (const id of ids) for (const c of id.slice(1)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (ids.length * 15) / 62;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.1);
  });
});
