// A partial update on PostgreSQL as one statement (PgDocStore.patch): the fields given are set
// where the row lives and the others kept, with no read before it; only a row that exists (and,
// when asked, has the owner given) is written; the change's event goes into the outbox by the
// same statement with the row as written as its data; parallel patches of one row each apply
// to the one before; a unique index refusing the change leaves the row as it was.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pgBin } from '../../test/pg-cluster.js';
import { usePgDatabase } from '../../test/pg-suite.js';
import { recordStatements } from '../../test/pg-statements.js';
import { UniqueViolationError } from '../errors.js';
import type { BusEvent } from '../../core/bus.js';
import { Outbox } from './outbox.js';

const suite = usePgDatabase('patch');

const statements = (): string[] => recordStatements(suite.db);

afterEach(() => { vi.restoreAllMocks(); suite.db.outbox = undefined; });

const eventOf = (id: string): BusEvent => ({ id, type: 'record.updated', app: 'w', timestamp: '2026-01-01T00:00:00.000Z', collection: 'c', data: { _id: 'ignored' }, actor: { type: 'user', id: 'u "1"' } } as unknown as BusEvent);

describe.skipIf(!pgBin)('a partial update in one statement', () => {
  it('sets the fields given and keeps the others, in one statement without a read, answering the row as stored', async () => {
    const s = await suite.db.store('w', 'p1');
    await s.insert({ _id: 'a', name: 'Ada', age: 30, meta: { x: 1 } });
    const seen = statements();
    const out = await s.patch('a', { age: 31, meta: { y: 2 }, gone: null, updatedAt: 'T1' });
    expect(out).toEqual({ _id: 'a', name: 'Ada', age: 31, meta: { y: 2 }, gone: null, updatedAt: 'T1' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/^UPDATE /);
    expect(await s.get('a')).toEqual(out);
    await expect(s.patch('a', { _id: 'b' })).rejects.toThrow(/_id/);
  });

  it('writes nothing for a missing row, or for a row of another owner when an owner is given', async () => {
    const s = await suite.db.store('w', 'p2');
    await s.insert({ _id: 'mine', _owner: 'u1', v: 1 });
    await s.insert({ _id: 'none', v: 1 });
    expect(await s.patch('missing', { v: 2 })).toBeUndefined();
    expect(await s.get('missing')).toBeUndefined();
    expect(await s.patch('mine', { v: 2 }, { owner: 'u2' })).toBeUndefined();
    expect(await s.patch('none', { v: 2 }, { owner: 'u2' })).toBeUndefined();
    expect((await s.get('mine'))!.v).toBe(1);
    expect((await s.get('none'))!.v).toBe(1);
    expect(await s.patch('mine', { v: 3 }, { owner: 'u1' })).toEqual({ _id: 'mine', _owner: 'u1', v: 3 });
  });

  it("stores the change's event in the outbox with the row as written as its data; nothing written, no event", async () => {
    const s = await suite.db.store('w', 'p3');
    await s.insert({ _id: 'a', name: 'Ada', n: 1 });
    suite.db.outbox = new Outbox(suite.db, 'origin-1');
    const event = eventOf('ev-1');
    const out = await s.patch('a', { n: 2 }, { event });
    expect(event.outboxed).toBe(true);
    const row = (await suite.db.query<{ event: string; origin: string; workspace: string }>('SELECT event, origin, workspace FROM homebase_outbox WHERE id = $1', ['ev-1'])).rows[0];
    expect(row).toMatchObject({ origin: 'origin-1', workspace: 'w' });
    const stored = JSON.parse(row.event);
    expect(stored).toEqual({ ...eventOf('ev-1'), data: out });
    expect(stored.data).toEqual({ _id: 'a', name: 'Ada', n: 2 });

    const missed = eventOf('ev-2');
    expect(await s.patch('missing', { n: 2 }, { event: missed })).toBeUndefined();
    expect(missed.outboxed).toBeUndefined();
    expect((await suite.db.query('SELECT 1 FROM homebase_outbox WHERE id = $1', ['ev-2'])).rowCount).toBe(0);
  });

  it('parallel patches of one row each apply to the one before: every field survives', async () => {
    const s = await suite.db.store('w', 'p4');
    await s.insert({ _id: 'r', base: true });
    const n = 30;
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => s.patch('r', { [`k${i}`]: i })));
    const sizes = answers.map((a) => Object.keys(a!).filter((k) => k.startsWith('k')).length).sort((a, b) => a - b);
    expect(sizes).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    const final = (await s.get('r'))!;
    for (let i = 0; i < n; i++) expect(final[`k${i}`]).toBe(i);
    expect(final.base).toBe(true);
  });

  it('a unique index refusing the change leaves the row as it was', async () => {
    const s = await suite.db.store('w', 'p5');
    await s.ensureIndex({ fieldName: 'email', unique: true });
    await s.insert({ _id: 'a', email: 'a@x' });
    await s.insert({ _id: 'b', email: 'b@x', n: 1 });
    await expect(s.patch('b', { email: 'a@x', n: 2 })).rejects.toBeInstanceOf(UniqueViolationError);
    expect(await s.get('b')).toEqual({ _id: 'b', email: 'b@x', n: 1 });
  });
});
