// Snapshots inside PostgreSQL: a restore brings back exactly what was snapshotted (changed,
// deleted and added records, stores created or dropped since), in one transaction; names are
// unique per workspace and workspaces do not see each other's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgBin, startPgCluster, type PgCluster } from '../../test/pg-cluster.js';
import { PgDatabase } from './pg-store.js';
import { deleteDbSnapshot, listDbSnapshots, restoreDbSnapshot, takeDbSnapshot } from './snapshots.js';
import { NotFoundError, UniqueViolationError } from '../errors.js';

let cluster: PgCluster;
let db: PgDatabase;

beforeAll(async () => {
  if (!pgBin) return;
  cluster = await startPgCluster();
  db = await PgDatabase.open(await cluster.createDatabase('snap'));
}, 60_000);
afterAll(async () => { await db?.close(); cluster?.stop(); });

describe.skipIf(!pgBin)('snapshots in the database', () => {
  it('restores changed, deleted and added records and stores created or dropped since', async () => {
    const users = await db.store('w1', 'users');
    const notes = await db.store('w1', 'collections/notes');
    await users.insertMany([{ _id: 'u1', email: 'a@x.io' }, { _id: 'u2', email: 'b@x.io' }]);
    await notes.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: `n${i}`, i })));
    const gone = await db.store('w1', 'collections/gone');
    await gone.insert({ _id: 'g1' });
    const other = await db.store('w2', 'users');
    await other.insert({ _id: 'o1' });

    const info = await takeDbSnapshot(db, 'w1', 'base');
    expect(info).toMatchObject({ name: 'base', stores: 3, records: 53 });
    await expect(takeDbSnapshot(db, 'w1', 'base')).rejects.toBeInstanceOf(UniqueViolationError);

    await users.replace('u1', { _id: 'u1', email: 'changed@x.io' });
    await users.remove('u2');
    await users.insert({ _id: 'u3', email: 'c@x.io' });
    await db.dropStore('w1', 'collections/gone');
    await (await db.store('w1', 'collections/later')).insert({ _id: 'l1' });
    await other.insert({ _id: 'o2' });

    const { written } = await restoreDbSnapshot(db, 'w1', 'base');
    expect(written).toBe(5); // u1 out and in, u3 out, u2 in, gone's g1 in
    expect(await (await db.store('w1', 'users')).all()).toEqual([{ _id: 'u1', email: 'a@x.io' }, { _id: 'u2', email: 'b@x.io' }]);
    expect(await db.storeNames('w1')).toEqual(['collections/gone', 'collections/notes', 'users']);
    expect(await (await db.store('w1', 'collections/gone')).all()).toEqual([{ _id: 'g1' }]);
    expect(await (await db.store('w1', 'collections/notes')).count()).toBe(50);
    expect((await other.all()).map((d) => d._id)).toEqual(['o1', 'o2']); // another workspace is untouched

    // Restoring again changes nothing.
    expect((await restoreDbSnapshot(db, 'w1', 'base')).written).toBe(0);
    await expect(restoreDbSnapshot(db, 'w1', 'nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(restoreDbSnapshot(db, 'w2', 'base')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('overwrites, lists and deletes snapshots', async () => {
    const s = await db.store('w3', 'users');
    await s.insert({ _id: 'a' });
    await takeDbSnapshot(db, 'w3', 'one');
    await s.insert({ _id: 'b' });
    await takeDbSnapshot(db, 'w3', 'one', true);
    await s.remove('a');
    await restoreDbSnapshot(db, 'w3', 'one');
    expect((await (await db.store('w3', 'users')).all()).map((d) => d._id)).toEqual(['a', 'b']);
    expect((await listDbSnapshots(db, 'w3')).map((x) => x.name)).toEqual(['one']);
    await deleteDbSnapshot(db, 'w3', 'one');
    expect(await listDbSnapshots(db, 'w3')).toEqual([]);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename ~ '^hb_s_[0-9]+_snap_'`);
    expect(rows[0].n).toBe(3); // w1's snapshot only
  });
});
