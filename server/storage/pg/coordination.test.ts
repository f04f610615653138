// Several processes on one database: each PgDatabase below has its own pool and listener, as a
// separate Homebase process would. Events reach the other one, each tick is taken once, the
// login limit is one for both; schema upgrades keep data; a lost server is 503 with the reason,
// then everything recovers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { pgBin, startPgCluster, type PgCluster } from '../../test/pg-cluster.js';
import { PgDatabase } from './database.js';
import { claimTick, EventRelay, SharedLoginLimiter, type RelayedEvent } from './coordination.js';
import { RateLimitedError, StoreUnavailableError } from '../errors.js';
import { migrate, SCHEMA_VERSION } from './schema.js';

let cluster: PgCluster;
let url: string;
let a: PgDatabase;
let b: PgDatabase;

beforeAll(async () => {
  if (!pgBin) return;
  cluster = await startPgCluster();
  url = await cluster.createDatabase('coord');
  [a, b] = [await PgDatabase.open(url), await PgDatabase.open(url)];
}, 60_000);
afterAll(async () => { await a?.close(); await b?.close(); cluster?.stop(); });

const until = async (ok: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe.skipIf(!pgBin)('several processes on one database', () => {
  it('events published by one process reach the others, not itself; large ones through a table', async () => {
    const gotA: RelayedEvent[] = [];
    const gotB: RelayedEvent[] = [];
    const ra = await EventRelay.start(a, (e) => gotA.push(e));
    const rb = await EventRelay.start(b, (e) => gotB.push(e));
    try {
      await ra.publish('demo', { type: 'record.created', data: { _id: 'r1' } });
      const big = { type: 'record.created', data: { _id: 'r2', text: 'x'.repeat(20_000) } };
      await ra.publish('demo', big);
      await until(() => gotB.length === 2);
      expect(gotB).toEqual([{ workspace: 'demo', event: { type: 'record.created', data: { _id: 'r1' } } }, { workspace: 'demo', event: big }]);
      await rb.publish('other', { type: 'user.created' });
      await until(() => gotA.length === 1);
      expect(gotA).toEqual([{ workspace: 'other', event: { type: 'user.created' } }]);
      // b never hears its own: a later event of a's reaches b next (notifications come in the
      // order they were committed).
      await ra.publish('demo', { type: 'record.deleted', data: { _id: 'r1' } });
      await until(() => gotB.length >= 3);
      expect(gotB[2]).toEqual({ workspace: 'demo', event: { type: 'record.deleted', data: { _id: 'r1' } } });
    } finally {
      await ra.close();
      await rb.close();
    }
  });

  it('a scheduled tick fires in one process only', async () => {
    const tick = new Date(Date.UTC(2026, 0, 1, 12, 0));
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => claimTick(i % 2 ? a : b, 'demo', 's1', tick)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await claimTick(a, 'demo', 's1', new Date(tick.getTime() + 60_000))).toBe(true);
    expect(await claimTick(b, 'demo', 's2', tick)).toBe(true);
  });

  it('failed logins count once for all processes, parallel guesses included', async () => {
    const la = new SharedLoginLimiter(a, 3);
    const lb = new SharedLoginLimiter(b, 3);
    // Ten parallel wrong guesses through both: three are let through, the rest get 429.
    const outcomes = await Promise.all(Array.from({ length: 10 }, async (_, i) => {
      const l = i % 2 ? la : lb;
      try {
        const id = await l.begin('demo', 'x@y.io');
        await new Promise((r) => setTimeout(r, 30));
        await l.end(id, true);
        return 'tried';
      } catch (err) {
        return err instanceof RateLimitedError ? 429 : err;
      }
    }));
    expect(outcomes.filter((o) => o === 'tried')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 429)).toHaveLength(7);
    const err = await la.begin('demo', 'x@y.io').catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.retryAfter).toBeGreaterThan(0);
    expect(err.retryAfter).toBeLessThanOrEqual(60);
    // A success never counts; another email and another workspace are not limited.
    await lb.end(await lb.begin('demo', 'other@y.io'), false);
    await lb.end(await lb.begin('other', 'x@y.io'), true);
    await la.clearWorkspace('demo');
    await la.end(await la.begin('demo', 'x@y.io'), false);
  });

  it('upgrades an older schema in place, keeping its data', async () => {
    const old = await cluster.createDatabase('old');
    const pool = new pg.Pool({ connectionString: old });
    await migrate(pool, 1);
    await pool.query(`INSERT INTO homebase_stores (workspace, name, table_name) VALUES ('w', 'users', 'hb_s_x')`);
    expect((await pool.query(`SELECT to_regclass('homebase_ticks') AS t`)).rows[0].t).toBeNull();
    await pool.end();
    const db = await PgDatabase.open(old);
    expect((await db.query('SELECT version FROM homebase_schema')).rows[0].version).toBe(SCHEMA_VERSION);
    expect((await db.query(`SELECT to_regclass('homebase_ticks') AS t`)).rows[0].t).toBe('homebase_ticks');
    // Version 7 dropped version 2's delivery table, unused.
    expect((await db.query(`SELECT to_regclass('homebase_deliveries') AS t`)).rows[0].t).toBeNull();
    expect(await db.storeNames('w')).toEqual(['users']);
    await db.close();
  });

  it('a lost server answers 503 with the reason, then everything recovers', async () => {
    const store = await a.store('demo', 'lost');
    await store.insert({ _id: 'k', v: 1 });
    const got: RelayedEvent[] = [];
    let resumed = 0;
    const rb = await EventRelay.start(b, (e) => got.push(e), () => resumed++);
    const ra = await EventRelay.start(a, () => undefined);
    try {
      cluster.pause();
      const err = await store.get('k').catch((e) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect(err.code).toBe('UNAVAILABLE');
      expect(err.message).toMatch(/database is unavailable/);
      await expect(store.insert({ _id: 'm' })).rejects.toBeInstanceOf(StoreUnavailableError);
      cluster.resume();
      await until(() => true);
      let value: unknown;
      const end = Date.now() + 10_000;
      while (Date.now() < end) {
        value = await store.get('k').catch(() => undefined);
        if (value) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(value).toEqual({ _id: 'k', v: 1 });
      expect(await store.get('m')).toBeUndefined(); // the refused write left no trace
      // The listener reconnected: events flow again.
      for (let i = 0; i < 50 && got.length === 0; i++) {
        await ra.publish('demo', { type: 'ping', i });
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(got.length).toBeGreaterThan(0);
      expect(resumed).toBeGreaterThan(0); // told, so that what it may have missed is read again
    } finally {
      await ra.close();
      await rb.close();
    }
  }, 60_000);
});
