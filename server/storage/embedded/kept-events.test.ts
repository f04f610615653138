// Events kept with their writes on the embedded driver (kept-events.ts): the event is in the
// write's own append, so a "restart" (the same files opened again without closing the first
// stores, as after a kill -9) finds exactly the events not settled, with their data; a refused
// write keeps none, a compaction keeps the unsettled ones, and a clean stop with nothing left
// unsettled removes the list of stores.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DocStore } from './doc-store.js';
import { KeptEvents, PENDING_FILE } from './kept-events.js';
import { waitFor } from '../../test/receiver.js';
import type { BusEvent } from '../../core/bus.js';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'hb-kept-'));
  dirs.push(d);
  return d;
}

/** A run of a workspace `w1` in `dir`: its kept events and its stores, opened on demand. */
function run(dir: string) {
  const kept = new KeptEvents(dir, 'w1');
  const stores = new Map<string, DocStore>();
  const open = async (name: string) => {
    let s = stores.get(name);
    if (!s) {
      s = await DocStore.open({ filename: join(dir, `${name}.db`), compactEvery: 0 });
      s.kept = { events: kept, name };
      stores.set(name, s);
    }
    return s;
  };
  return { kept, open, stores };
}

const event = (type: BusEvent['type'], data: Record<string, unknown>, app = 'w1'): BusEvent => ({ id: `evt_${randomUUID()}`, type, timestamp: new Date().toISOString(), app, data });

describe('events kept with their writes (embedded)', () => {
  it('finds after a kill exactly the events not settled, with the data they were published with', async () => {
    const dir = folder();
    const a = run(dir);
    expect(await a.kept.start(a.open)).toEqual([]);
    const items = await a.open('items');
    const doc = { _id: 'r1', n: 1 };
    const created = event('record.created', doc);
    await items.insert(doc, created);
    expect(created.outboxed).toBe(true);
    const next = { _id: 'r1', n: 2 };
    const updated = event('record.updated', next);
    await items.replace('r1', next, updated);
    const removed = event('record.deleted', { _id: 'r1', n: 2, note: 'as it was' });
    await items.remove('r1', removed);
    expect(readFileSync(join(dir, PENDING_FILE), 'utf8')).toBe('items\n');

    // The create's deliveries are stored: settled, and marked so in the file a moment later.
    a.kept.settled(created.id);
    await waitFor(() => readFileSync(join(dir, 'items.db'), 'utf8').includes(created.id.slice(4) + '"]'), 5000, 'the settled mark');

    // Killed: the next run opens the same files, the first stores never closed.
    const b = run(dir);
    const again = await b.kept.start(b.open);
    expect(again.map((e) => [e.id, e.type, e.data])).toEqual([
      [updated.id, 'record.updated', next],
      [removed.id, 'record.deleted', { _id: 'r1', n: 2, note: 'as it was' }],
    ]);
    expect(again[0]).toMatchObject({ app: 'w1', timestamp: updated.timestamp });
    expect(again[0].outboxed).toBeUndefined();

    // Settled in this run, then a clean stop: nothing is left to find, and the list goes.
    for (const e of again) b.kept.settled(e.id);
    for (const s of b.stores.values()) await s.close();
    await b.kept.close((name) => b.stores.get(name)!.holdsEvents);
    expect(existsSync(join(dir, PENDING_FILE))).toBe(false);
    const c = run(dir);
    expect(await c.kept.start(c.open)).toEqual([]);
  });

  it('settles, never publishes again, the events of a store loaded again after a swap', async () => {
    const dir = folder();
    const a = run(dir);
    await a.kept.start(a.open);
    const items = await a.open('items');
    const before = event('record.created', { _id: 's1' });
    await items.insert({ _id: 's1' }, before);
    // An import, restore or reset appended its lines and the store is loaded again.
    const reloaded = await DocStore.open({ filename: join(dir, 'items.db'), compactEvery: 0 });
    reloaded.kept = { events: a.kept, name: 'items' };
    a.kept.opened(reloaded);
    expect(reloaded.takeLoadedEvents()).toEqual([]);
    await reloaded.close();
    const b = run(dir);
    expect(await b.kept.start(b.open)).toEqual([]);
  });

  it('keeps no event for a refused write or before it is turned on, and a compaction keeps the unsettled ones whole', async () => {
    const dir = folder();
    const a = run(dir);
    const early = event('record.created', { _id: 'e0' });
    const items = await a.open('items');
    await items.insert({ _id: 'e0' }, early);
    expect(early.outboxed).toBeUndefined(); // keeping is off until the start turns it on
    await a.kept.start(a.open);
    await items.ensureIndex({ fieldName: 'code', unique: true });
    const first = { _id: 'c1', code: 'A' };
    const kept = event('record.created', first);
    await items.insert(first, kept);
    const clash = event('record.created', { _id: 'c2', code: 'A' });
    await expect(items.insert({ _id: 'c2', code: 'A' }, clash)).rejects.toThrow();
    expect(clash.outboxed).toBeUndefined();
    const other = event('user.created', { _id: 'u1', email: 'u@example.com' });
    await (await a.open('users')).insert({ _id: 'u1', email: 'u@example.com', passwordHash: 'secret-hash' }, other);
    // An event of another workspace (a fork's file starts as its source's) is not this one's.
    const foreign = event('record.created', { _id: 'f1' }, 'source');
    await items.insert({ _id: 'f1' }, foreign);

    await items.compact();
    const text = readFileSync(join(dir, 'items.db'), 'utf8');
    expect(text).not.toContain('$$doc');
    expect(text).not.toContain(clash.id);

    const b = run(dir);
    const again = await b.kept.start(b.open);
    expect(again.map((e) => [e.id, e.data])).toEqual([
      [kept.id, first],
      [other.id, { _id: 'u1', email: 'u@example.com' }],
    ]);
  });
});
