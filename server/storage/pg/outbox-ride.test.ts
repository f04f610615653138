// Dispatched events' outbox rows are deleted by the statement of the next write that stores an
// event (no statement of their own), by a statement of their own when no write comes, and are
// kept for a later delete when the write that carried them fails.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pgBin } from '../../test/pg-cluster.js';
import { usePgDatabase } from '../../test/pg-suite.js';
import { recordStatements } from '../../test/pg-statements.js';
import type { BusEvent } from '../../core/bus.js';
import { Outbox } from './outbox.js';

const suite = usePgDatabase('outboxride');

const statements = () => recordStatements(suite.db, (text, values) => ({ text, values }));

afterEach(() => { vi.restoreAllMocks(); suite.db.outbox = undefined; });

const eventOf = (id: string): BusEvent => ({ id, type: 'record.created', app: 'w', timestamp: '2026-01-01T00:00:00.000Z', collection: 'c', data: {} } as unknown as BusEvent);
const stored = async () => (await suite.db.query<{ id: string }>('SELECT id FROM homebase_outbox ORDER BY id')).rows.map((r) => r.id);

describe.skipIf(!pgBin)('outbox rows of dispatched events', () => {
  it('go with the next write, in its statement', async () => {
    const s = await suite.db.store('w', 'r1');
    const outbox = suite.db.outbox = new Outbox(suite.db, 'o1');
    await s.insert({ _id: 'a' }, { event: eventOf('e1') });
    await s.insert({ _id: 'b' }, { event: eventOf('e2') });
    expect(await stored()).toEqual(['e1', 'e2']);
    outbox.settled('e1');
    outbox.settled('e2');
    const seen = statements();
    await s.patch('a', { n: 1 }, { event: eventOf('e3') });
    expect(seen).toHaveLength(1);
    expect(seen[0].text).toMatch(/DELETE FROM homebase_outbox/);
    expect(seen[0].values).toContainEqual(['e1', 'e2']);
    expect(await stored()).toEqual(['e3']);
  });

  it('go by a statement of their own when no write comes', async () => {
    await suite.db.query('DELETE FROM homebase_outbox');
    const s = await suite.db.store('w', 'r2');
    const outbox = suite.db.outbox = new Outbox(suite.db, 'o2');
    await s.insert({ _id: 'a' }, { event: eventOf('f1') });
    outbox.settled('f1');
    await vi.waitFor(async () => expect(await stored()).toEqual([]), { timeout: 5000, interval: 20 });
  });

  it('stay for a later delete when the write carrying them fails', async () => {
    await suite.db.query('DELETE FROM homebase_outbox');
    const s = await suite.db.store('w', 'r3');
    const outbox = suite.db.outbox = new Outbox(suite.db, 'o3');
    await s.insert({ _id: 'a' }, { event: eventOf('g1') });
    outbox.settled('g1');
    await expect(s.insert({ _id: 'a' }, { event: eventOf('g2') })).rejects.toThrow(); // the id is taken
    expect(await stored()).toEqual(['g1']); // the failed statement deleted nothing
    await vi.waitFor(async () => expect(await stored()).toEqual([]), { timeout: 5000, interval: 20 });
  });
});
