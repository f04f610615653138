// Snapshots inside PostgreSQL: a restore brings back exactly what was snapshotted (changed,
// deleted and added records, stores created or dropped since), in one transaction; names are
// unique per workspace and workspaces do not see each other's.
import { describe, expect, it } from 'vitest';
import { pgBin } from '../../test/pg-cluster.js';
import { usePgDatabase } from '../../test/pg-suite.js';
import { indexName } from './sql-query.js';
import { deleteDbSnapshot, listDbSnapshots, restoreDbSnapshot, takeDbSnapshot } from './snapshots.js';
import { NotFoundError, UniqueViolationError } from '../errors.js';

const suite = usePgDatabase('snap');

describe.skipIf(!pgBin)('snapshots in the database', () => {
  it('restores changed, deleted and added records and stores created or dropped since', async () => {
    const users = await suite.db.store('w1', 'users');
    const notes = await suite.db.store('w1', 'collections/notes');
    await users.insertMany([{ _id: 'u1', email: 'a@x.io' }, { _id: 'u2', email: 'b@x.io' }]);
    await notes.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: `n${i}`, i })));
    const gone = await suite.db.store('w1', 'collections/gone');
    await gone.insert({ _id: 'g1' });
    const other = await suite.db.store('w2', 'users');
    await other.insert({ _id: 'o1' });

    const info = await takeDbSnapshot(suite.db, 'w1', 'base');
    expect(info).toMatchObject({ name: 'base', counts: { users: 2, 'collections/notes': 50, 'collections/gone': 1 } });
    await expect(takeDbSnapshot(suite.db, 'w1', 'base')).rejects.toBeInstanceOf(UniqueViolationError);

    await users.replace('u1', { _id: 'u1', email: 'changed@x.io' });
    await users.remove('u2');
    await users.insert({ _id: 'u3', email: 'c@x.io' });
    await suite.db.dropStore('w1', 'collections/gone');
    await (await suite.db.store('w1', 'collections/later')).insert({ _id: 'l1' });
    await other.insert({ _id: 'o2' });

    const { written, rebuilt } = await restoreDbSnapshot(suite.db, 'w1', 'base');
    expect(written).toBe(4); // u1 out and in, u3 out, u2 in
    expect(rebuilt).toBe(1); // gone, brought back
    expect(await (await suite.db.store('w1', 'users')).all()).toEqual([{ _id: 'u1', email: 'a@x.io' }, { _id: 'u2', email: 'b@x.io' }]);
    expect(await suite.db.storeNames('w1')).toEqual(['collections/gone', 'collections/notes', 'users']);
    expect(await (await suite.db.store('w1', 'collections/gone')).all()).toEqual([{ _id: 'g1' }]);
    expect(await (await suite.db.store('w1', 'collections/notes')).count()).toBe(50);
    expect((await other.all()).map((d) => d._id)).toEqual(['o1', 'o2']); // another workspace is untouched

    // Restoring again changes nothing.
    expect(await restoreDbSnapshot(suite.db, 'w1', 'base')).toMatchObject({ written: 0, rebuilt: 0 });
    await expect(restoreDbSnapshot(suite.db, 'w1', 'nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(restoreDbSnapshot(suite.db, 'w2', 'base')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('rebuilds a store rewritten since, or whose indexes changed, with the snapshot\'s indexes', async () => {
    const people = await suite.db.store('w4', 'collections/people');
    await people.ensureIndex({ fieldName: 'email', unique: true });
    await people.insertMany(Array.from({ length: 3000 }, (_, i) => ({ _id: `p${String(i).padStart(4, '0')}`, email: `p${i}@x.io`, n: i })));
    await suite.db.query('INSERT INTO homebase_workspaces (id, name, created_at, settings, keys) VALUES ($1, $1, now(), $2::jsonb, $3::jsonb)', ['w4', JSON.stringify({ v: 1 }), '{}']);
    await takeDbSnapshot(suite.db, 'w4', 'base', { skip: new Set(['sessions']), filesDir: 'f1', describe: (counts, settings) => ({ counts, settings }) });
    const sessions = await suite.db.store('w4', 'sessions');
    await sessions.insert({ _id: 's1' });
    const table = people.table;

    // Every record rewritten, and the settings changed: a rebuild under the same table name.
    await suite.db.query(`UPDATE ${table} SET doc = doc || '{"n": -1}'`);
    await suite.db.query('UPDATE homebase_workspaces SET settings = $1::jsonb WHERE id = $2', ['{"v": 2}', 'w4']);
    let out = await restoreDbSnapshot(suite.db, 'w4', 'base', { skip: new Set(['sessions']) });
    expect(out).toMatchObject({ written: 0, rebuilt: 1, settings: { v: 1 }, filesDir: 'f1', info: { counts: { 'collections/people': 3000 }, settings: { v: 1 } } });
    const again = await suite.db.store('w4', 'collections/people');
    expect(again.table).toBe(table);
    expect(await again.get('p0007')).toEqual({ _id: 'p0007', email: 'p7@x.io', n: 7 });
    expect((await suite.db.query('SELECT settings FROM homebase_workspaces WHERE id = $1', ['w4'])).rows[0].settings).toEqual({ v: 1 });
    // The unique index came back with it, and the sessions were left alone.
    await expect(again.insert({ _id: 'dup', email: 'p7@x.io' })).rejects.toBeInstanceOf(UniqueViolationError);
    expect(await again.listIndexes()).toEqual([{ fieldName: 'createdAt', unique: false }, { fieldName: 'email', unique: true }]);
    // With its sort index (the rebuilt table's indexes are all built again).
    const indexNames = async () => (await suite.db.query(`SELECT indexname FROM pg_indexes WHERE tablename = $1`, [table])).rows.map((r) => r.indexname);
    expect(await indexNames()).toContain(`${indexName(table, 'email')}_sd`);
    expect((await sessions.all()).map((d) => d._id)).toEqual(['s1']);

    // Its unique index dropped, another added since, and a lookup index: a few rows to write
    // back, and the snapshot's unique indexes exactly (the lookup index stays).
    await again.removeIndex('email');
    await again.ensureIndex({ fieldName: 'n', unique: true });
    await again.ensureIndex({ fieldName: 'role' });
    await again.insert({ _id: 'p9999', email: 'p7@x.io', n: 9999 });
    await again.replace('p0008', { _id: 'p0008', email: 'p8@x.io', n: 10000 });
    out = await restoreDbSnapshot(suite.db, 'w4', 'base', { skip: new Set(['sessions']) });
    expect(out).toMatchObject({ written: 3, rebuilt: 0 });
    const third = await suite.db.store('w4', 'collections/people');
    expect(await third.listIndexes()).toEqual([{ fieldName: 'createdAt', unique: false }, { fieldName: 'email', unique: true }, { fieldName: 'role', unique: false }]);
    expect(await third.get('p0008')).toEqual({ _id: 'p0008', email: 'p8@x.io', n: 8 });
    expect(await third.count()).toBe(3000);
    expect(await third.get('p9999')).toBeUndefined();
    await expect(third.insert({ _id: 'dup', email: 'p8@x.io' })).rejects.toBeInstanceOf(UniqueViolationError);
    // The primary key and the default order's index are there.
    const idx = (await suite.db.query(`SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname`, [table])).rows.map((r) => r.indexname);
    expect(idx).toContain(`${table}_created`);
    expect(idx).toContain(`${indexName(table, 'role')}_sa`);
    expect(idx).toContain(`${indexName(table, 'email')}_sd`);
    expect(idx).not.toContain(`${indexName(table, 'n')}_sa`); // n's unique index was not in the snapshot
    expect(idx).toContain(`${table}_pkey`);
  });

  it('overwrites, lists and deletes snapshots', async () => {
    const s = await suite.db.store('w3', 'users');
    await s.insert({ _id: 'a' });
    await takeDbSnapshot(suite.db, 'w3', 'one');
    await s.insert({ _id: 'b' });
    await takeDbSnapshot(suite.db, 'w3', 'one', { overwrite: true });
    await s.remove('a');
    await restoreDbSnapshot(suite.db, 'w3', 'one');
    expect((await (await suite.db.store('w3', 'users')).all()).map((d) => d._id)).toEqual(['a', 'b']);
    expect((await listDbSnapshots(suite.db, 'w3')).map((x) => x.name)).toEqual(['one']);
    await deleteDbSnapshot(suite.db, 'w3', 'one');
    expect(await listDbSnapshots(suite.db, 'w3')).toEqual([]);
    const { rows } = await suite.db.query(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename ~ '^hb_s_[0-9]+_snap_'`);
    expect(rows[0].n).toBe(4); // w1's and w4's snapshots only
  });
});
