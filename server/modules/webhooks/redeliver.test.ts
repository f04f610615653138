// Sending a logged delivery again (`POST /webhooks/{id}/logs/{logId}/redeliver`), and the time
// of the next retry on a failed attempt's log entry (`nextAttemptAt`).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { clearBetweenTests, startReceiver, waitFor, type Receiver } from '../../test/receiver.js';

let t: TestServer;
let rx: Receiver;
beforeAll(async () => {
  // One retry, far enough away to be seen pending.
  t = await startTestServer({ webhookRetryDelays: [60_000] });
  rx = await startReceiver();
});
afterAll(async () => { await t.close(); await rx.close(); });
afterEach(() => clearBetweenTests(t, rx, 'webhooks'));

describe('webhook redelivery', () => {
  it('shows when a failed attempt is retried, and none after the last one or a success', async () => {
    rx.respond = () => ({ status: 500, body: 'down' });
    const hook = (await t.req('POST', '/webhooks', { body: { name: 'h', url: rx.url, events: ['*'] } })).body;
    const before = Date.now();
    const first = await t.req('POST', `/webhooks/${hook._id}/test`);
    expect(first.body).toMatchObject({ status: 'failed', attempt: 1 });
    const next = Date.parse(first.body.nextAttemptAt);
    expect(next).toBeGreaterThanOrEqual(before + 60_000);
    expect(next).toBeLessThan(Date.now() + 61_000);
    const listed = await t.req('GET', `/webhooks/${hook._id}/logs`);
    expect(listed.body.data[0].nextAttemptAt).toBe(first.body.nextAttemptAt);

    rx.respond = () => ({ status: 200 });
    const ok = await t.req('POST', `/webhooks/${hook._id}/test`);
    expect(ok.body).toMatchObject({ status: 'succeeded', nextAttemptAt: null });
  });

  it('sends a logged event again, signed anew with the same event id, and logs that attempt', async () => {
    rx.respond = () => ({ status: 503 });
    const hook = (await t.req('POST', '/webhooks', { body: { name: 'h', url: rx.url, events: ['record.*'], active: true } })).body;
    await t.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'private', write: 'private', update: 'private' } } });
    await t.req('POST', '/database/notes', { body: { text: 'hello' } });
    const failed = await waitFor(async () => (await t.req('GET', `/webhooks/${hook._id}/logs`)).body.data[0]);
    expect(failed).toMatchObject({ status: 'failed', event: 'record.created' });

    rx.respond = () => ({ status: 200, body: 'thanks' });
    const again = await t.req('POST', `/webhooks/${hook._id}/logs/${failed._id}/redeliver`);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ status: 'succeeded', event: 'record.created', eventId: failed.eventId, attempt: 1, redeliveryOf: failed._id, nextAttemptAt: null });
    expect(again.body._id).not.toBe(failed._id);
    const got = rx.received.at(-1)!;
    expect(got.headers['webhook-id']).toBe(failed.eventId);
    expect(got.body).toBe(failed.request.body);
    expect(new Webhook(hook.secret).verify(got.body, got.headers)).toMatchObject({ type: 'record.created', data: { text: 'hello' } });
    const logs = await t.req('GET', `/webhooks/${hook._id}/logs`);
    expect(logs.body.data[0]._id).toBe(again.body._id);

    // Unknown log entry, or one of another webhook: 404.
    expect((await t.req('POST', `/webhooks/${hook._id}/logs/nope/redeliver`)).status).toBe(404);
    const other = (await t.req('POST', '/webhooks', { body: { name: 'o', url: rx.url, events: ['*'] } })).body;
    expect((await t.req('POST', `/webhooks/${other._id}/logs/${failed._id}/redeliver`)).status).toBe(404);
    // Admin only.
    const user = await t.user('Ann');
    expect((await t.req('POST', `/webhooks/${hook._id}/logs/${failed._id}/redeliver`, { token: user.token })).status).toBe(403);
  });
});
