// Two Homebase servers on one PostgreSQL database (and one files folder), as two processes
// behind a load balancer would be: a record created through one reaches a realtime socket of
// the other, a webhook is delivered once, a unique index holds under parallel inserts through
// both, a login limit counts guesses made through both, schema changes made at the same moment
// through both are all kept, and a scheduled scenario follows changes made through either.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgEngineOf, startTestServer, stopOwnCluster, testDatabase, type TestServer } from './harness.js';
import { PG_SKIP_REASON } from './pg-cluster.js';
import { startReceiver, waitFor, type Receiver } from './receiver.js';
import { TestSocket, realtimeUrl } from '../modules/realtime/test-socket.js';

describe.skipIf(!!PG_SKIP_REASON)('two servers on one database', () => {
  let a: TestServer;
  let b: TestServer;
  let files: string;
  let rx: Receiver;
  let database: string;

  beforeAll(async () => {
    database = await testDatabase();
    files = mkdtempSync(join(tmpdir(), 'homebase-two-'));
    a = await startTestServer({ database, files });
    b = await startTestServer({ database, files }); // finds the workspace, console token and admin of the first
    rx = await startReceiver();
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await rx?.close();
    rmSync(files, { recursive: true, force: true });
    await stopOwnCluster();
  });

  it('share the console token, the workspace and the schema', async () => {
    expect(b.consoleToken).toBe(a.consoleToken);
    const made = await a.req('POST', '/database', { body: { _id: 'notes', name: 'Notes', setting: { read: 'public', write: 'private', update: 'only-user' } } });
    expect(made.status).toBe(201);
    // The second server learns the new schema from the first (relayed), without a restart.
    await waitFor(async () => (await b.req('GET', '/database/notes')).status === 200, 5000, 'the collection on the second server');
  });

  it('a record created through one reaches a realtime socket of the other', async () => {
    const socket = await TestSocket.open(realtimeUrl(b.api, b.adminToken));
    try {
      expect(await socket.subscribe('database:notes')).toEqual({ type: 'subscribed', topic: 'database:notes' });
      const created = await a.req('POST', '/database/notes', { body: { text: 'from a' } });
      expect(created.status).toBe(201);
      const frame = await socket.next((f) => f.type === 'event' && f.event === 'record.created');
      expect(frame).toEqual({ type: 'event', id: expect.stringMatching(/^evt_/), topic: 'database:notes', event: 'record.created', data: created.body });
      // And it is readable through the other server at once.
      expect((await b.req('GET', `/database/notes/${created.body._id}`)).body).toEqual(created.body);
    } finally {
      socket.socket.close();
    }
  });

  it('under a burst of creates through one, a socket of the other receives every event (no fault, nothing dropped)', async () => {
    const socket = await TestSocket.open(realtimeUrl(b.api, b.adminToken));
    try {
      expect(await socket.subscribe('database:notes')).toMatchObject({ type: 'subscribed' });
      const got = new Set<string>();
      socket.socket.on('message', (raw) => { const f = JSON.parse(raw.toString()); if (f.type === 'event' && f.event === 'record.created') got.add(f.data._id); });
      // As fast as 20 clients can write (a few hundred a second here): one notification per
      // event, sent one after another from a queue of 1,000, lost about half of them.
      const ids: string[] = [];
      let n = 0;
      await Promise.all(Array.from({ length: 20 }, async () => {
        while (n < 2000) {
          n++;
          const res = await a.req('POST', '/database/notes', { body: { text: `burst ${n}` } });
          expect(res.status).toBe(201);
          ids.push(res.body._id);
        }
      }));
      await waitFor(() => ids.every((id) => got.has(id)), 30_000, 'every event of the burst on the other server').catch(() => undefined);
      expect(ids.filter((id) => !got.has(id))).toHaveLength(0);
    } finally {
      socket.socket.close();
    }
  }, 90_000);

  it('a session ended through one closes its sockets on the other at once', async () => {
    // Listening only: no frame is sent after subscribing, and the heartbeat is 30 s away.
    const u = await a.user('Two-server user');
    const admin = await a.user('Two-server admin', { role: 'admin' });
    const imp = await a.req('POST', `/auth/impersonate/${u._id}`, { token: admin.token });
    expect(imp.status).toBe(200);
    const channel = await a.req('POST', '/chats/channels', { token: u.token, body: { name: 'two servers' } });
    expect(channel.status).toBe(201);
    const own = await TestSocket.open(realtimeUrl(b.api, u.token));
    const impersonated = await TestSocket.open(realtimeUrl(b.api, imp.body.token));
    try {
      for (const s of [own, impersonated]) expect(await s.subscribe(`chat:${channel.body._id}`)).toMatchObject({ type: 'subscribed' });
      expect((await a.req('POST', '/auth/logout', { token: u.token, body: {} })).status).toBe(204);
      expect((await own.waitClose()).code).toBe(1008);
      expect(impersonated.closed).toBeUndefined();
      expect((await a.req('PATCH', `/users/${admin._id}`, { body: { role: 'user' } })).status).toBe(200);
      expect((await impersonated.waitClose()).code).toBe(1008);
    } finally {
      own.close();
      impersonated.close();
    }
  });

  it('a webhook is delivered once, though both servers know it', async () => {
    const hook = await a.req('POST', '/webhooks', { body: { name: 'once', url: `${rx.url}/hook`, events: ['record.created'], active: true } });
    expect(hook.status).toBe(201);
    const before = rx.received.length;
    const created = await b.req('POST', '/database/notes', { body: { text: 'hooked' } });
    expect(created.status).toBe(201);
    await waitFor(() => rx.received.length > before, 10_000, 'the delivery');
    // A second delivery would have come by the time records created afterwards through both
    // servers have been delivered.
    const later = await Promise.all([a, b].map(async (s) => (await s.req('POST', '/database/notes', { body: { text: 'later' } })).body._id as string));
    await waitFor(() => later.every((lid) => rx.received.some((r) => r.body.includes(lid))), 30_000, 'the later deliveries');
    const mine = rx.received.slice(before).filter((r) => r.body.includes(created.body._id));
    expect(mine).toHaveLength(1);
    const logs = await a.req('GET', `/webhooks/${hook.body._id}/logs?limit=100`);
    const eventId = JSON.parse(mine[0].body).id;
    expect(logs.body.data.filter((l: { status: string; eventId: string }) => l.status === 'succeeded' && l.eventId === eventId)).toHaveLength(1);
  }, 60_000);

  it('a unique index holds under parallel inserts through both', async () => {
    expect((await a.req('POST', '/database/notes/fields', { body: { _id: 'code', name: 'code', type: 'string', unique: true } })).status).toBe(201);
    await waitFor(async () => (await b.req('GET', '/database/notes/fields/code')).status === 200, 5000, 'the field on the second server');
    const tries = Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).req('POST', '/database/notes', { body: { text: `t${i}`, code: 'same' } }));
    const statuses = (await Promise.all(tries)).map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    expect((await b.req('GET', '/database/notes?filter[code]=same')).body.meta.total).toBe(1);
  });

  it('schema changes made at the same moment through both are all kept', async () => {
    // Collections created at once, half through each server: each change re-reads the schema
    // under a lock shared by both, so none overwrites another.
    const ids = Array.from({ length: 20 }, (_, i) => `par${i}`);
    const made = await Promise.all(ids.map((id, i) => (i % 2 ? a : b).req('POST', '/database', { body: { _id: id, name: id, setting: { read: 'public', write: 'private', update: 'private' } } })));
    expect(made.map((r) => r.status), JSON.stringify(made[0].body)).toEqual(ids.map(() => 201));
    const listed = async (s: TestServer) => new Set(((await s.req('GET', '/database?limit=100')).body.data as Array<{ _id: string }>).map((c) => c._id));
    for (const s of [a, b]) {
      await waitFor(async () => { const have = await listed(s); return ids.every((id) => have.has(id)); }, 5000, 'every collection on both servers');
    }
    expect([...await listed(a)]).toContain('notes'); // and the one made before

    // Fields and indexes added to one collection at once through both.
    const fields = Array.from({ length: 10 }, (_, i) => `f${i}`);
    const added = await Promise.all(fields.map((f, i) => (i % 2 ? a : b).req('POST', '/database/par0/fields', { body: { _id: f, name: f, type: 'string' } })));
    expect(added.map((r) => r.status)).toEqual(fields.map(() => 201));
    const indexed = await Promise.all(fields.slice(0, 6).map((f, i) => (i % 2 ? b : a).req('POST', '/database/par0/indexes', { body: { _id: `by_${f}`, fields: [f] } })));
    expect(indexed.map((r) => r.status)).toEqual(fields.slice(0, 6).map(() => 201));
    const idsOf = async (s: TestServer, part: string) => ((await s.req('GET', `/database/par0/${part}`)).body.data as Array<{ _id: string }>).map((x) => x._id).sort();
    for (const s of [a, b]) {
      await waitFor(async () => (await idsOf(s, 'fields')).length === 10 && (await idsOf(s, 'indexes')).length === 6, 5000, 'every field and index on both servers');
      expect(await idsOf(s, 'fields')).toEqual([...fields].sort());
      expect(await idsOf(s, 'indexes')).toEqual(fields.slice(0, 6).map((f) => `by_${f}`).sort());
    }
  });

  it('a snapshot taken through one is listed and restored through the other, and the first serves what it restored', async () => {
    const snap = await a.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'shared' });
    expect(snap.status).toBe(201);
    const listed = await b.consoleReq('GET', '/workspaces/demo/snapshots');
    expect(listed.body.data).toEqual([snap.body]);
    const before = (await a.req('GET', '/database/notes?limit=100')).body;
    // Records and the schema change through one server, then the other restores.
    expect((await a.req('POST', '/database/notes', { body: { text: 'after the snapshot' } })).status).toBe(201);
    expect((await a.req('POST', '/database', { body: { _id: 'later', setting: { read: 'public', write: 'public', update: 'private' } } })).status).toBe(201);
    await waitFor(async () => (await b.req('GET', '/database/later')).status === 200, 5000, 'the new collection on the second server');
    const restored = await b.consoleReq('POST', '/workspaces/demo/snapshots/shared/restore');
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual(snap.body);
    // The first server was told: its schema and records are the snapshot's.
    await waitFor(async () => (await a.req('GET', '/database/later')).status === 404, 5000, 'the restored schema on the first server');
    expect((await a.req('GET', '/database/notes?limit=100')).body).toEqual(before);
    // The unique index came back with the table: still enforced through both.
    expect((await a.req('POST', '/database/notes', { body: { text: 'again', code: 'same' } })).status).toBe(409);
    // Deleted through one, gone for both.
    expect((await a.consoleReq('DELETE', '/workspaces/demo/snapshots/shared')).status).toBe(204);
    expect((await b.consoleReq('GET', '/workspaces/demo/snapshots')).body.data).toEqual([]);
    expect((await b.consoleReq('POST', '/workspaces/demo/snapshots/shared/restore')).status).toBe(404);
  });

  describe('a scheduled scenario', () => {
    let id: string;
    const EVERY_2S = '*/2 * * * * *';
    const YEARLY = '0 0 0 1 1 *';
    const fired = async (via: TestServer) => ((await via.req('GET', `/scenarios/${id}/executions?limit=100`)).body.data as Array<{ trigger: { firedAt: string } }>)
      .map((e) => Date.parse(e.trigger.firedAt)).sort((x, y) => x - y);
    // A second scheduled scenario, every second, is the test's metronome: it shows that ticks
    // were due (and fired by these servers) while the one under test stayed quiet.
    let metronome: string;
    const beats = () => rx.received.filter((r) => r.url === '/beat').length;
    /** Runs of the scenario under test started while the metronome beat `n` times (after one
     *  more beat first, which lets a tick in flight finish). */
    const firedWhileBeats = async (n: number) => {
      const first = beats();
      await waitFor(() => beats() > first, 10_000, 'a beat');
      const before = (await fired(a)).length;
      const from = beats();
      await waitFor(() => beats() >= from + n, 20_000, `${n} beats`);
      return (await fired(a)).length - before;
    };

    it('follows changes made through either server and fires once per tick', async () => {
      const made = await a.req('POST', '/scenarios', { body: { name: 'Tick', trigger: { type: 'schedule', cron: EVERY_2S }, steps: [{ type: 'http', url: `${rx.url}/tick` }] } });
      expect(made.status).toBe(201);
      id = made.body._id;
      const beat = await b.req('POST', '/scenarios', { body: { name: 'Metronome', trigger: { type: 'schedule', cron: '* * * * * *' }, steps: [{ type: 'http', url: `${rx.url}/beat` }] } });
      expect(beat.status).toBe(201);
      metronome = beat.body._id;
      expect((await a.req('POST', `/scenarios/${metronome}/activate`)).status).toBe(200);
      expect((await b.req('POST', `/scenarios/${id}/activate`)).status).toBe(200);
      await waitFor(async () => (await fired(b)).length >= 3, 15_000, 'three ticks');

      // Rescheduled through a to once a year: neither server fires any more (without the relay,
      // b would go on with the schedule it was activated with).
      expect((await a.req('PUT', `/scenarios/${id}`, { body: { trigger: { type: 'schedule', cron: YEARLY } } })).status).toBe(200);
      expect(await firedWhileBeats(5)).toBe(0);

      // Back to every two seconds through a, then deactivated through b.
      expect((await a.req('PUT', `/scenarios/${id}`, { body: { trigger: { type: 'schedule', cron: EVERY_2S } } })).status).toBe(200);
      const count = (await fired(a)).length;
      await waitFor(async () => (await fired(a)).length >= count + 2, 15_000, 'two ticks of the new schedule');
      expect((await b.req('POST', `/scenarios/${id}/deactivate`)).status).toBe(200);
      expect(await firedWhileBeats(5)).toBe(0);

      // Once per tick: two servers firing the same tick would start runs milliseconds apart.
      // Each run's firedAt is its tick, so a tick fired twice shows as a repeated time.
      const times = await fired(b);
      expect(new Set(times).size, JSON.stringify(times.map((t) => new Date(t).toISOString()))).toBe(times.length);
      expect(rx.received.filter((r) => r.url === '/tick')).toHaveLength(times.length);
    }, 60_000);

    it('is read again by a server whose event listener was cut while it changed', async () => {
      expect((await a.req('POST', `/scenarios/${id}/activate`)).status).toBe(200);
      const count = (await fired(a)).length;
      await waitFor(async () => (await fired(a)).length > count, 15_000, 'a tick');
      // b's listening connection ends; the change to a yearly schedule made meanwhile through a
      // never reaches b as a message. Once back, b reads every schedule again.
      const relay = pgEngineOf(b.srv)!.relay!;
      const pid = relay.listenerPid;
      const admin = new pg.Client({ connectionString: database });
      await admin.connect();
      try {
        expect((await admin.query('SELECT pg_terminate_backend($1) AS done', [pid])).rows[0].done).toBe(true);
      } finally {
        await admin.end();
      }
      expect((await a.req('PUT', `/scenarios/${id}`, { body: { trigger: { type: 'schedule', cron: YEARLY } } })).status).toBe(200);
      await waitFor(() => relay.listenerPid !== undefined && relay.listenerPid !== pid, 10_000, 'the listener back');
      expect(await firedWhileBeats(5)).toBe(0);
    }, 60_000);

    it('changed through one server, fires through the other once the first is gone', async () => {
      expect((await a.req('PUT', `/scenarios/${id}`, { body: { trigger: { type: 'schedule', cron: EVERY_2S } } })).status).toBe(200);
      await a.close(); // the last test: only b serves from here
      const count = (await fired(b)).length;
      await waitFor(async () => (await fired(b)).length >= count + 2, 15_000, 'ticks fired by the remaining server');
      expect((await b.req('POST', `/scenarios/${id}/deactivate`)).status).toBe(200);
      expect((await b.req('POST', `/scenarios/${metronome}/deactivate`)).status).toBe(200);
    }, 30_000);
  });
});
