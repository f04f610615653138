// When a store's file has grown well past its compacted size it is rewritten (group-commit.ts),
// counting the document lines appended since: the lines of kept events and their settled marks
// do not count (each event is settled within moments and dropped by the next compaction), so a
// store under steady writes is not rewritten twice as often for them.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DocStore } from './doc-store.js';
import { KeptEvents } from './kept-events.js';
import type { BusEvent } from '../../core/bus.js';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

async function keepingStore(): Promise<{ s: DocStore; kept: KeptEvents; file: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'hb-growth-'));
  dirs.push(dir);
  const kept = new KeptEvents(dir, 'w1');
  expect(await kept.start(async () => { throw new Error('nothing to recover'); })).toEqual([]);
  const file = join(dir, 'things.db');
  const s = await DocStore.open({ filename: file, compactEvery: 0 });
  s.kept = { events: kept, name: 'things' };
  return { s, kept, file };
}

const event = (data: Record<string, unknown>): BusEvent => ({ id: `evt_${randomUUID()}`, type: 'record.updated', timestamp: new Date().toISOString(), app: 'w1', data });
const MB = 1024 * 1024;

describe('compaction after growth', () => {
  it('does not count the lines of kept events', async () => {
    const { s, kept, file } = await keepingStore();
    const big = 'x'.repeat(100_000);
    for (let i = 0; i < 100; i++) {
      const e = event({ big, i }); // not the document: the event line carries it whole
      await s.replace('a', { _id: 'a', i }, e).then((r) => r ?? s.insert({ _id: 'a', i }, e));
      kept.settled(e.id);
    }
    await s.insert({ _id: 'b' }); // after any rewrite the last write queued
    expect(statSync(file).size).toBeGreaterThan(9 * MB); // ~10 MB of event lines, not rewritten
    await s.close();
    expect(statSync(file).size).toBeLessThan(1_000); // a clean stop compacts: the settled events go
  });

  it('still rewrites a file grown by its documents', async () => {
    const { s, kept, file } = await keepingStore();
    const big = 'x'.repeat(100_000);
    for (let i = 0; i < 100; i++) {
      const e = event({ i });
      const doc = { _id: 'a', big, i };
      await s.replace('a', doc, e).then((r) => r ?? s.insert(doc, e));
      kept.settled(e.id);
    }
    await s.insert({ _id: 'b' });
    expect(statSync(file).size).toBeLessThan(3 * MB); // rewritten once past 8 MB: ~10 MB appended
    await s.close();
  });
});
