// Webhooks v2 over HTTP: `filter.match` on the event's data with the list filter's operators,
// and `batch` (one signed delivery of up to maxEvents, sent when full or maxWaitMs after its
// first event, by the workspace's clock), an open batch surviving a restart. Signatures are
// checked with the standardwebhooks package.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';
import { clearBetweenTests, startReceiver, waitFor, type Receiver, type Received } from '../../test/receiver.js';
import { v2Client } from '../../v2/v2-client.js';

let t: TestServer;
let rx: Receiver;
let sentinel: Receiver;
const CLOCK = '/workspaces/demo/clock';

beforeAll(async () => {
  t = await startTestServer({ webhookRetryDelays: [50, 50, 50, 50] });
  rx = await startReceiver();
  sentinel = await startReceiver();
  expect((await t.req('POST', '/database', { body: { _id: 'orders', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
});
afterAll(async () => { await t.close(); await rx.close(); await sentinel.close(); });
afterEach(async () => {
  await clearBetweenTests(t, rx, 'webhooks');
  sentinel.received.length = 0;
  await t.consoleReq('DELETE', CLOCK);
  t.adminToken = (await t.consoleReq('POST', '/workspaces/demo/token')).body.token;
});

const verify = (secret: string, r: Received) => new Webhook(secret).verify(r.body, r.headers) as Record<string, any>;

async function hook(srv: TestServer, url: string, extra: Record<string, unknown>): Promise<{ _id: string; secret: string }> {
  const res = await srv.req('POST', '/webhooks', { body: { name: 'h', url, events: ['record.created'], ...extra } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function order(srv: TestServer, data: Record<string, unknown>): Promise<string> {
  const res = await srv.req('POST', '/database/orders', { body: data });
  expect(res.status, res.text).toBe(201);
  return res.body._id;
}

describe('filter.match', () => {
  it('delivers only the events whose data match, with the list filter\'s operators and coercion', async () => {
    const filtered = await hook(t, rx.url, { filter: { collection: 'orders', match: { status: 'paid', total: { $gte: 100 }, 'customer.country': { $in: ['FR', 'DE'] } } } });
    await hook(t, sentinel.url, {});
    await order(t, { status: 'paid', total: 50, customer: { country: 'FR' } }); // total too low
    await order(t, { status: 'pending', total: 500, customer: { country: 'FR' } }); // status
    await order(t, { status: 'paid', total: 500, customer: { country: 'US' } }); // country
    const wanted = await order(t, { status: 'paid', total: '150', customer: { country: 'DE' } }); // "150" is coerced like a list's filter
    await waitFor(() => sentinel.received.length === 4 && rx.received.length >= 1, 5000, 'the deliveries');
    expect(rx.received).toHaveLength(1);
    const body = verify(filtered.secret, rx.received[0]);
    expect(body).toMatchObject({ type: 'record.created', collection: 'orders', data: { _id: wanted, status: 'paid' } });
    // The attempt's log entry is written once the receiver's answer is back, which can come
    // after the receiver has counted the request: wait for it, then check nothing else was logged.
    const logs = await waitFor(async () => {
      const res = await t.req('GET', `/webhooks/${filtered._id}/logs`);
      return res.body.meta.total >= 1 && res;
    }, 5000, 'the delivery log entry');
    expect(logs.body.meta.total).toBe(1);
  });

  it('is accepted on v1 and v2, shown back, changed and removed with PUT', async () => {
    const v2 = v2Client(t);
    const made = await v2('POST', '/webhooks', { body: { name: 'v2', url: rx.url, events: ['record.*'], filter: { match: { done: { $ne: true } } }, batch: { maxEvents: 5, maxWaitMs: 1000 } } });
    expect(made.status, made.text).toBe(201);
    expect(made.body.data).toMatchObject({ filter: { match: { done: { $ne: true } } }, batch: { maxEvents: 5, maxWaitMs: 1000 } });
    const id = made.body.data._id;
    const v1 = await t.req('GET', `/webhooks/${id}`);
    expect(v1.body).toMatchObject({ filter: { match: { done: { $ne: true } } }, batch: { maxEvents: 5, maxWaitMs: 1000 } });
    const cleared = await t.req('PUT', `/webhooks/${id}`, { body: { batch: null, filter: { collection: 'orders' } } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.batch).toBeUndefined();
    expect(cleared.body.filter).toEqual({ collection: 'orders' });
  });

  it('refuses a bad filter or batch with 422 naming it', async () => {
    const base = { name: 'bad', url: rx.url, events: ['*'] };
    const unknownOp = await t.req('POST', '/webhooks', { body: { ...base, filter: { match: { status: { $regex: 'p.*' } } } } });
    expect(unknownOp.status).toBe(422);
    expect(unknownOp.body.error.details.field).toBe('filter.match.status');
    expect(unknownOp.body.error.message).toContain('$regex');
    const notObject = await t.req('POST', '/webhooks', { body: { ...base, filter: { match: 'status=paid' } } });
    expect(notObject.status).toBe(422);
    expect(notObject.body.error.details.field).toBe('filter.match');
    const unknownKey = await t.req('POST', '/webhooks', { body: { ...base, filter: { where: {} } } });
    expect(unknownKey.status).toBe(422);
    expect(unknownKey.body.error.details.field).toBe('filter.where');
    const badBatch = await v2Client(t)('POST', '/webhooks', { body: { ...base, batch: { maxEvents: 0, maxWaitMs: 100 } } });
    expect(badBatch.status).toBe(422);
    expect(badBatch.body.error.details.field).toBe('batch.maxEvents');
    const badPath = await t.req('POST', '/webhooks', { body: { ...base, filter: { match: { 'a..b': 1 } } } });
    expect(badPath.status).toBe(422);
    expect((await t.req('GET', '/webhooks')).body.meta.total).toBe(0);
  });
});

describe('batch', () => {
  it('sends one signed delivery of maxEvents events when the batch is full, retried like a single delivery', async () => {
    rx.respond = (_r, n) => (n === 1 ? { status: 503, body: 'busy' } : { status: 200, body: 'ok' });
    const batched = await hook(t, rx.url, { batch: { maxEvents: 3, maxWaitMs: 3_600_000 } });
    const ids = [await order(t, { n: 1 }), await order(t, { n: 2 }), await order(t, { n: 3 })];
    await waitFor(() => rx.received.length === 2, 5000, 'the batch and its retry');
    const body = verify(batched.secret, rx.received[0]);
    expect(verify(batched.secret, rx.received[1])).toEqual(body);
    expect(rx.received[1].headers['webhook-id']).toBe(rx.received[0].headers['webhook-id']);
    expect(body.type).toBe('batch');
    expect(body.id).toBe(rx.received[0].headers['webhook-id']);
    expect(body.events.map((e: { data: { _id: string } }) => e.data._id)).toEqual(ids);
    expect(body.events[0]).toMatchObject({ type: 'record.created', collection: 'orders', app: 'demo', data: { n: 1 } });
    const logs = await waitFor(async () => { const l = await t.req('GET', `/webhooks/${batched._id}/logs`); return l.body.meta.total === 2 && l; });
    expect(logs.body.data.map((e: { event: string; status: string; attempt: number }) => [e.event, e.attempt, e.status])).toEqual([['batch', 2, 'succeeded'], ['batch', 1, 'failed']]);
  });

  it('sends what it holds maxWaitMs after its first event, by the workspace clock', async () => {
    await t.consoleReq('PUT', CLOCK, { frozen: true });
    t.adminToken = (await t.consoleReq('POST', '/workspaces/demo/token')).body.token;
    const batched = await hook(t, rx.url, { batch: { maxEvents: 10, maxWaitMs: 60_000 } });
    await hook(t, sentinel.url, {});
    await order(t, { n: 1 });
    await order(t, { n: 2 });
    await waitFor(() => sentinel.received.length === 2, 5000, 'the single deliveries');
    expect(rx.received).toHaveLength(0); // the clock stands still: the batch waits
    await t.consoleReq('POST', `${CLOCK}/advance`, { ms: 60_000 });
    await waitFor(() => rx.received.length === 1, 5000, 'the batch');
    const body = verify(batched.secret, rx.received[0]);
    expect(body.events.map((e: { data: { n: number } }) => e.data.n)).toEqual([1, 2]);
  });

  it('keeps an open batch across a restart', async () => {
    const data = tempDataDir();
    let s = await startTestServer({ data: data.dir });
    try {
      const made = await s.req('POST', '/database', { body: { _id: 'orders', setting: { read: 'private', write: 'private', update: 'private' } } });
      expect(made.status, made.text).toBe(201);
      const batched = await hook(s, rx.url, { batch: { maxEvents: 3, maxWaitMs: 3_600_000 } });
      await hook(s, sentinel.url, {});
      const before = [await order(s, { n: 1 }), await order(s, { n: 2 })];
      await waitFor(() => sentinel.received.length === 2, 5000, 'the single deliveries');
      await s.close();
      expect(rx.received).toHaveLength(0);

      s = await startTestServer({ data: data.dir });
      const after = await order(s, { n: 3 });
      await waitFor(() => rx.received.length === 1, 5000, 'the batch after the restart');
      const body = verify(batched.secret, rx.received[0]);
      expect(body.events.map((e: { data: { _id: string } }) => e.data._id)).toEqual([...before, after]);
    } finally {
      await s.close();
      data.remove();
    }
  });
});
