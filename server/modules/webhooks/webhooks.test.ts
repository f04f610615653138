import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';
import { clearBetweenTests, startReceiver, waitFor, type Receiver, type Received } from '../../test/receiver.js';

let t: TestServer;
let rx: Receiver;
beforeAll(async () => {
  t = await startTestServer({ webhookRetryDelays: [50, 50, 50, 50] });
  rx = await startReceiver();
  for (const c of ['posts', 'comments']) expect((await t.req('POST', '/database', { body: { _id: c, setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
});
afterAll(async () => { await t.close(); await rx.close(); });
afterEach(() => clearBetweenTests(t, rx, 'webhooks'));

function publish(srv: TestServer, type: string, data: Record<string, unknown>, collection?: string) {
  return srv.srv.ctx.bus.publish({ type: type as never, app: srv.workspace, data, ...(collection ? { collection } : {}) });
}

function verify(secret: string, r: Received) {
  return new Webhook(secret).verify(r.body, r.headers) as Record<string, unknown>;
}

describe('webhooks CRUD', () => {
  it('creates a webhook and shows its secret once', async () => {
    const created = await t.req('POST', '/webhooks', { body: { name: 'App', url: `${rx.url}/hook`, events: ['record.*'], active: true } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'App', url: `${rx.url}/hook`, events: ['record.*'], active: true });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    const { secret, _id } = created.body;

    const got = await t.req('GET', `/webhooks/${_id}`);
    const list = await t.req('GET', '/webhooks');
    const edited = await t.req('PUT', `/webhooks/${_id}`, { body: { name: 'Renamed', filter: { collection: 'posts' } } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: 'Renamed', url: `${rx.url}/hook`, events: ['record.*'], filter: { collection: 'posts' } });
    const cleared = await t.req('PATCH', `/webhooks/${_id}`, { body: { filter: null, active: false } });
    expect(cleared.body.filter).toBeUndefined();
    expect(cleared.body.active).toBe(false);
    expect(list.body.meta.total).toBe(1);
    for (const res of [got, list, edited, cleared, await t.req('GET', `/webhooks?fields=sealedSecret,name`)]) {
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(secret);
      expect(res.text).not.toContain(secret.slice(6));
      expect(res.text).not.toContain('sealed');
      expect(res.text).not.toContain('"secret"');
    }
    expect((await t.req('DELETE', `/webhooks/${_id}`)).status).toBe(204);
    expect((await t.req('GET', `/webhooks/${_id}`)).status).toBe(404);
    expect((await t.req('GET', `/webhooks/${_id}/logs`)).status).toBe(404);
  });

  it('defaults active to true and validates url and events', async () => {
    const ok = await t.req('POST', '/webhooks', { body: { name: 'd', url: 'http://localhost:9/x', events: ['*'] } });
    expect(ok.status).toBe(201);
    expect(ok.body.active).toBe(true);
    const cases: Array<[unknown, string]> = [
      [{ name: 'x', url: 'ftp://example.com', events: ['*'] }, 'url'],
      [{ name: 'x', url: 'not a url', events: ['*'] }, 'url'],
      [{ name: 'x', url: 'http://127.0.0.1:1/', events: ['record.exploded'] }, 'events.0'],
      [{ name: 'x', url: 'http://127.0.0.1:1/', events: ['nothing.*'] }, 'events.0'],
      [{ name: 'x', url: 'http://127.0.0.1:1/', events: [] }, 'events'],
      [{ url: 'http://127.0.0.1:1/', events: ['*'] }, 'name'],
      [{ name: 'x', url: 'http://127.0.0.1:1/', events: ['*'], active: 'yes' }, 'active'],
    ];
    for (const [body, field] of cases) {
      const res = await t.req('POST', '/webhooks', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.details.field).toBe(field);
      if (field === 'url') expect(res.body.error.details.reason).toBe('format');
    }
    expect((await t.req('PUT', `/webhooks/${ok.body._id}`, { body: { events: ['bogus'] } })).status).toBe(422);
    expect((await t.req('PUT', '/webhooks/nope', { body: { name: 'n' } })).status).toBe(404);
  });

  it('is admin only', async () => {
    const user = (await t.user()).token;
    expect((await t.req('GET', '/webhooks', { token: null })).status).toBe(401);
    expect((await t.req('GET', '/webhooks', { token: user })).status).toBe(403);
    expect((await t.req('POST', '/webhooks', { token: user, body: { name: 'x', url: rx.url, events: ['*'] } })).status).toBe(403);
    expect((await t.req('GET', '/webhooks/any/logs', { token: user })).status).toBe(403);
  });
});

describe('webhook delivery', () => {
  it('delivers matching events, signed per Standard Webhooks, and logs them', async () => {
    const hook = (await t.req('POST', '/webhooks', { body: { name: 'rec', url: `${rx.url}/rec`, events: ['record.created', 'user.*'] } })).body;
    const post = await t.req('POST', '/database/posts', { body: { title: 'Hello' } });
    expect(post.status).toBe(201);
    expect((await t.req('DELETE', `/database/posts/${post.body._id}`)).status).toBe(204); // not subscribed
    const user = await t.req('POST', '/users', { body: { email: 'hooked@example.com', password: 'hooked-password-1' } });
    expect(user.status).toBe(201);
    await waitFor(() => rx.received.length >= 2, 5000, 'two deliveries');
    const bodies = rx.received.map((r) => verify(hook.secret, r));
    const record = bodies.find((b) => b.type === 'record.created')!;
    expect(record).toMatchObject({ type: 'record.created', app: t.workspace, collection: 'posts', data: { _id: post.body._id, title: 'Hello' } });
    expect(Object.keys(record).sort()).toEqual(['app', 'collection', 'data', 'id', 'timestamp', 'type']);
    const created = bodies.find((b) => b.type === 'user.created')!;
    expect(created.data).toMatchObject({ _id: user.body._id, email: 'hooked@example.com' });
    expect(created.data).not.toHaveProperty('passwordHash');
    expect(created.data).not.toHaveProperty('password');
    for (const r of rx.received) {
      expect(r.method).toBe('POST');
      expect(r.url).toBe('/rec');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['webhook-id']).toBe(JSON.parse(r.body).id);
    }
    // A bus event whose publisher forgot to strip the hash still goes out without it.
    publish(t, 'user.updated', { _id: 'u1', email: 'a@b.c', passwordHash: '$2b$leak' });
    await waitFor(() => rx.received.length === 3);
    expect(verify(hook.secret, rx.received[2]).data).toEqual({ _id: 'u1', email: 'a@b.c' });
    // That later event came after the first two, and nothing else did (not the delete).
    expect(rx.received.map((r) => JSON.parse(r.body).type).sort()).toEqual(['record.created', 'user.created', 'user.updated']);

    const logs = await waitFor(async () => { const l = await t.req('GET', `/webhooks/${hook._id}/logs`); return l.body.meta.total === 3 && l; });
    expect(logs.status).toBe(200);
    const entry = logs.body.data.find((e: { event: string }) => e.event === 'record.created');
    expect(entry).toMatchObject({
      webhookId: hook._id, eventId: record.id, attempt: 1, status: 'succeeded', error: null,
      response: { status: 200, body: 'ok' },
    });
    expect(entry.request.headers['webhook-signature']).toMatch(/^v1,/);
    expect(JSON.parse(entry.request.body)).toEqual(record);
    expect(typeof entry.durationMs).toBe('number');
    expect(logs.text).not.toContain(hook.secret.slice(6));
    expect(logs.text).not.toContain('$2b$leak');
    const limited = await t.req('GET', `/webhooks/${hook._id}/logs?limit=1&sort=createdAt`);
    expect(limited.body.data).toHaveLength(1);
    expect(limited.body.meta).toEqual({ total: 3, limit: 1, offset: 0 });
  });

  it('applies filter.collection', async () => {
    await t.req('POST', '/webhooks', { body: { name: 'posts only', url: rx.url, events: ['*'], filter: { collection: 'posts' } } });
    await t.req('POST', '/database/comments', { body: { _id: 'c1' } });
    await t.req('POST', '/users', { body: { email: 'filtered@example.com', password: 'filtered-password-1' } });
    await t.req('POST', '/database/posts', { body: { _id: 'p1' } });
    await waitFor(() => rx.received.length >= 1);
    // A later post, once delivered, shows the earlier events were passed over.
    await t.req('POST', '/database/posts', { body: { _id: 'p2' } });
    await waitFor(() => rx.received.length >= 2);
    expect(rx.received.map((r) => JSON.parse(r.body).data._id).sort()).toEqual(['p1', 'p2']);
  });

  it('sends nothing to an inactive webhook', async () => {
    const hook = (await t.req('POST', '/webhooks', { body: { name: 'off', url: `${rx.url}/off`, events: ['*'], active: false } })).body;
    await t.req('POST', '/webhooks', { body: { name: 'on', url: `${rx.url}/on`, events: ['*'] } });
    // The active webhook's deliveries of this event and of a later one show when the inactive
    // one would have had its own.
    const seenBy = async (title: string, n: number) => {
      await t.req('POST', '/database/posts', { body: { title } });
      await waitFor(() => rx.received.filter((r) => r.url === '/on').length >= n, 5000, `${n} deliveries to the active webhook`);
    };
    await seenBy('seen by one', 1);
    await seenBy('later', 2);
    expect(rx.received.map((r) => r.url)).toEqual(['/on', '/on']);
    expect((await t.req('GET', `/webhooks/${hook._id}/logs`)).body.meta.total).toBe(0);
    // Switched on, it receives the next event; switched off again, nothing.
    await t.req('PUT', `/webhooks/${hook._id}`, { body: { active: true } });
    await t.req('POST', '/database/posts', { body: { title: 'seen by both' } });
    await waitFor(() => rx.received.length >= 4);
    await t.req('PUT', `/webhooks/${hook._id}`, { body: { active: false } });
    await seenBy('seen by one again', 4);
    await seenBy('later again', 5);
    expect(rx.received.filter((r) => r.url === '/off')).toHaveLength(1);
  });

  it('retries a failing receiver, 5 attempts in all, each visible in the logs', async () => {
    rx.respond = () => ({ status: 500, body: 'boom' });
    const hook = (await t.req('POST', '/webhooks', { body: { name: 'fail', url: rx.url, events: ['record.*'] } })).body;
    publish(t, 'record.updated', { _id: 'x' }, 'posts');
    const logs = await waitFor(async () => { const l = await t.req('GET', `/webhooks/${hook._id}/logs`); return l.body.meta.total === 5 && l; }, 10_000);
    expect(logs.body.data.map((e: { attempt: number }) => e.attempt)).toEqual([5, 4, 3, 2, 1]);
    for (const e of logs.body.data) {
      expect(e).toMatchObject({ status: 'failed', error: 'Receiver answered HTTP 500', response: { status: 500, body: 'boom' } });
    }
    // Every attempt carries the same message id, each with its own signature.
    expect(new Set(rx.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    // Each entry is logged after its attempt; the fifth was the last (none is scheduled after it).
    expect(logs.body.data[0].nextAttemptAt).toBeNull();
    expect(rx.received).toHaveLength(5);
  });

  it('recovers after a failure, and logs connection errors', async () => {
    rx.respond = (_r, n) => (n === 1 ? { status: 503 } : { status: 204 });
    const hook = (await t.req('POST', '/webhooks', { body: { name: 'flaky', url: rx.url, events: ['record.*'] } })).body;
    publish(t, 'record.created', { _id: 'y' }, 'posts');
    const logs = await waitFor(async () => { const l = await t.req('GET', `/webhooks/${hook._id}/logs`); return l.body.meta.total === 2 && l; });
    expect(logs.body.data.map((e: { status: string }) => e.status)).toEqual(['succeeded', 'failed']);

    const gone = await startReceiver();
    await gone.close();
    const dead = (await t.req('POST', '/webhooks', { body: { name: 'dead', url: gone.url, events: ['record.*'] } })).body;
    publish(t, 'record.created', { _id: 'z' }, 'posts');
    const deadLogs = await waitFor(async () => { const l = await t.req('GET', `/webhooks/${dead._id}/logs`); return l.body.meta.total >= 1 && l; });
    expect(deadLogs.body.data[0]).toMatchObject({ status: 'failed', response: null });
    expect(deadLogs.body.data[0].error).toMatch(/ECONNREFUSED/);
  });

  it('times out a slow receiver', async () => {
    const s = await startTestServer({ webhookTimeout: 100, webhookRetryDelays: [] });
    try {
      rx.respond = () => ({ status: 200, delayMs: 1000 });
      const hook = (await s.req('POST', '/webhooks', { body: { name: 'slow', url: rx.url, events: ['*'] } })).body;
      const res = await s.req('POST', `/webhooks/${hook._id}/test`);
      expect(res.body).toMatchObject({ status: 'failed', error: 'Timed out after 100 ms', response: null, attempt: 1 });
    } finally {
      await s.close();
    }
  });

  it('fires a test event on demand, whatever the events and even while inactive', async () => {
    const hook = (await t.req('POST', '/webhooks', { body: { name: 'test', url: rx.url, events: ['file.deleted'], active: false } })).body;
    const res = await t.req('POST', `/webhooks/${hook._id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ webhookId: hook._id, event: 'webhook.test', attempt: 1, status: 'succeeded' });
    expect(rx.received).toHaveLength(1);
    expect(verify(hook.secret, rx.received[0])).toMatchObject({ type: 'webhook.test', app: t.workspace, data: { webhookId: hook._id } });
    expect((await t.req('POST', '/webhooks/missing/test')).status).toBe(404);
  });

  it('keeps the last 1,000 log entries per webhook', async () => {
    const hook = (await t.req('POST', '/webhooks', { body: { name: 'busy', url: rx.url, events: ['*'] } })).body;
    const other = (await t.req('POST', '/webhooks', { body: { name: 'other', url: rx.url, events: ['file.deleted'] } })).body;
    const logs = await t.srv.ctx.registry.require(t.workspace).store('webhook_logs');
    const old = (i: number, webhookId: string) => ({
      _id: `old${webhookId}${i}`, webhookId, eventId: `evt_${i}`, event: 'record.created', attempt: 1, status: 'succeeded', durationMs: 1,
      error: null, request: { url: rx.url, headers: {}, body: '{}' }, response: { status: 200, body: '' },
      createdAt: new Date(Date.UTC(2020, 0, 1, 0, 0, 0, i)).toISOString(),
    });
    await logs.insertMany(Array.from({ length: 1000 }, (_, i) => old(i, hook._id)));
    await logs.insertMany(Array.from({ length: 5 }, (_, i) => old(i, other._id)));
    expect((await t.req('POST', `/webhooks/${hook._id}/test`)).body.status).toBe('succeeded');
    const page = await t.req('GET', `/webhooks/${hook._id}/logs?limit=1`);
    expect(page.body.meta.total).toBe(1000);
    expect(page.body.data[0].event).toBe('webhook.test');
    expect((await t.req('GET', `/webhooks/${hook._id}/logs?filter[_id]=old${hook._id}0`)).body.meta.total).toBe(0);
    expect((await t.req('GET', `/webhooks/${hook._id}/logs?filter[_id]=old${hook._id}1`)).body.meta.total).toBe(1);
    expect((await t.req('GET', `/webhooks/${other._id}/logs`)).body.meta.total).toBe(5);
  });

  it('keeps pending retries across a restart', async () => {
    const data = tempDataDir();
    let s = await startTestServer({ data: data.dir, webhookRetryDelays: [1500, 50, 50, 50] });
    try {
      rx.respond = (_r, n) => (n === 1 ? { status: 500, body: 'first fails' } : { status: 200, body: 'ok' });
      const hook = (await s.req('POST', '/webhooks', { body: { name: 'durable', url: rx.url, events: ['record.*'] } })).body;
      publish(s, 'record.created', { _id: 'd1', n: 1 }, 'posts');
      await waitFor(async () => (await s.req('GET', `/webhooks/${hook._id}/logs`)).body.meta.total === 1);
      await s.close();
      expect(rx.received).toHaveLength(1);

      s = await startTestServer({ data: data.dir, webhookRetryDelays: [1500, 50, 50, 50] });
      await waitFor(() => rx.received.length === 2, 8000, 'the retry after restart');
      const second = verify(hook.secret, rx.received[1]);
      expect(second).toMatchObject({ type: 'record.created', data: { _id: 'd1', n: 1 } });
      expect(rx.received[1].headers['webhook-id']).toBe(rx.received[0].headers['webhook-id']);
      const logs = await waitFor(async () => { const l = await s.req('GET', `/webhooks/${hook._id}/logs`); return l.body.meta.total === 2 && l; });
      expect(logs.body.data.map((e: { attempt: number; status: string }) => [e.attempt, e.status])).toEqual([[2, 'succeeded'], [1, 'failed']]);
    } finally {
      await s.close();
      data.remove();
    }
  });
});
