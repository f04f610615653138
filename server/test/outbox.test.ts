// PostgreSQL's outbox: a write that publishes an event stores it in the write's own statement,
// so the record and its event are committed together or not at all, and an event whose process
// died before dispatching it is dispatched by a live one (webhook delivery with the event's id as
// `webhook-id`, realtime frame with the same id), after which its row goes. Runs in the
// PostgreSQL suite only (the embedded driver keeps no outbox: docs/webhooks.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { pgEngineOf, startTestServer, TEST_DRIVER, type TestServer } from './harness.js';
import { startReceiver, waitFor, type Receiver } from './receiver.js';
import { TestSocket, realtimeUrl } from '../modules/realtime/test-socket.js';
import { UniqueViolationError } from '../storage/errors.js';
import type { BusEvent } from '../core/bus.js';
import type { PgDatabase } from '../storage/pg/database.js';

describe.skipIf(TEST_DRIVER !== 'postgres')('the outbox on PostgreSQL', () => {
  let t: TestServer;
  let rx: Receiver;
  let db: PgDatabase;
  const outboxRow = async (id: string) => (await db.query<{ origin: string; event: string }>('SELECT origin, event FROM homebase_outbox WHERE id = $1', [id])).rows[0];

  beforeAll(async () => {
    t = await startTestServer();
    db = pgEngineOf(t.srv)!.db;
    rx = await startReceiver();
    expect((await t.req('POST', '/database', { body: { _id: 'items', setting: { read: 'public', write: 'private', update: 'private' } } })).status).toBe(201);
  }, 60_000);
  afterAll(async () => { await t?.close(); await rx?.close(); });

  const eventFor = (data: Record<string, unknown>): BusEvent => ({ id: `evt_${randomUUID()}`, type: 'record.created', timestamp: new Date().toISOString(), app: t.workspace, collection: 'items', data });

  it('stores a write\'s event in the same statement, and nothing when the write changes nothing', async () => {
    const store = await db.store(t.workspace, 'collections/items');
    await store.ensureIndex({ fieldName: 'code', unique: true });
    const first = eventFor({ _id: 'o1', code: 'A' });
    await store.insert({ _id: 'o1', code: 'A' }, { event: first });
    expect(first.outboxed).toBe(true);
    const row = await outboxRow(first.id);
    expect(row.origin).toBe(t.srv.ctx.registry.processes.origin);
    expect(JSON.parse(row.event)).toEqual({ id: first.id, type: 'record.created', timestamp: first.timestamp, app: t.workspace, collection: 'items', data: { _id: 'o1', code: 'A' } });

    // Refused by the unique index: neither the record nor its event.
    const clash = eventFor({ _id: 'o2', code: 'A' });
    await expect(store.insert({ _id: 'o2', code: 'A' }, { event: clash })).rejects.toBeInstanceOf(UniqueViolationError);
    expect(clash.outboxed).toBeUndefined();
    expect(await outboxRow(clash.id)).toBeUndefined();
    expect(await store.get('o2')).toBeUndefined();

    // A replace or remove of a record that is not there stores no event.
    const none = eventFor({ _id: 'missing' });
    expect(await store.replace('missing', { _id: 'missing' }, { event: none })).toBeUndefined();
    expect(await store.remove('missing', { event: none })).toBe(false);
    expect(await outboxRow(none.id)).toBeUndefined();
    await db.query('DELETE FROM homebase_outbox WHERE id = $1', [first.id]);
  });

  it('a create through the API leaves no event behind once it is delivered and relayed', async () => {
    const hook = await t.req('POST', '/webhooks', { body: { name: 'all', url: `${rx.url}/api-create`, events: ['record.created'] } });
    expect(hook.status).toBe(201);
    const created = await t.req('POST', '/database/items', { body: { n: 1 } });
    expect(created.status).toBe(201);
    const got = await waitFor(() => rx.received.find((r) => r.url === '/api-create'), 10_000, 'the delivery');
    expect(JSON.parse(got.body).data).toEqual(created.body);
    await waitFor(async () => (await outboxRow(got.headers['webhook-id'])) === undefined, 10_000, 'the row gone');
    expect((await t.req('DELETE', `/webhooks/${hook.body._id}`)).status).toBe(204);
  });

  it('an event left by a process that is gone is delivered and relayed by a live one, then its row goes', async () => {
    const hook = await t.req('POST', '/webhooks', { body: { name: 'recovered', url: `${rx.url}/recovered`, events: ['record.*'] } });
    expect(hook.status).toBe(201);
    const socket = await TestSocket.open(realtimeUrl(t.api, t.adminToken));
    try {
      expect(await socket.subscribe('database:items')).toMatchObject({ type: 'subscribed' });
      // What a process SIGKILLed right after acknowledging a create leaves: its record and, from
      // the same statement, its event, owned by a process that no longer holds its sign of life.
      const record = { _id: 'left1', n: 7, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
      await (await db.store(t.workspace, 'collections/items')).insert(record);
      const event = eventFor(record);
      await db.query('INSERT INTO homebase_outbox (id, workspace, origin, event) VALUES ($1, $2, $3, $4)', [event.id, t.workspace, `gone-${randomUUID()}`, JSON.stringify(event)]);

      const frame = await socket.next((f) => f.type === 'event' && f.id === event.id, 15_000);
      expect(frame).toMatchObject({ event: 'record.created', topic: 'database:items', data: record });
      const delivered = await waitFor(() => rx.received.find((r) => r.url === '/recovered'), 15_000, 'the recovered delivery');
      expect(delivered.headers['webhook-id']).toBe(event.id);
      expect(JSON.parse(delivered.body)).toMatchObject({ id: event.id, type: 'record.created', collection: 'items', data: record });
      await waitFor(async () => (await outboxRow(event.id)) === undefined, 10_000, 'the row gone');
      // Delivered once: the delivery's id comes from the event and the webhook.
      expect(rx.received.filter((r) => r.url === '/recovered')).toHaveLength(1);
    } finally {
      socket.socket.close();
      await t.req('DELETE', `/webhooks/${hook.body._id}`);
    }
  });
});
