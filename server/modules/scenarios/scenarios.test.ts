import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { clearBetweenTests, startReceiver, waitFor, type Receiver } from '../../test/receiver.js';
import { startMetronome } from '../../test/metronome.js';

const SECRET = 'tok_SuperSecret_value_123';

let t: TestServer;
let rx: Receiver;
beforeAll(async () => {
  t = await startTestServer();
  rx = await startReceiver();
  expect((await t.req('POST', '/credentials', { body: { name: 'API_TOKEN', value: SECRET } })).status).toBe(201);
  for (const c of ['orders', 'audit', 'items']) expect((await t.req('POST', '/database', { body: { _id: c, setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
});
afterAll(async () => { await t.close(); await rx.close(); });
afterEach(() => clearBetweenTests(t, rx, 'scenarios'));

async function scenario(body: Record<string, unknown>, activate = true) {
  const created = await t.req('POST', '/scenarios', { body });
  expect(created.status, created.text).toBe(201);
  if (activate) {
    const res = await t.req('POST', `/scenarios/${created.body._id}/activate`);
    expect(res.status, res.text).toBe(200);
  }
  return created.body._id as string;
}

async function executions(id: string) {
  const res = await t.req('GET', `/scenarios/${id}/executions?limit=100`);
  expect(res.status).toBe(200);
  expect(res.text).not.toContain(SECRET);
  return res.body.data as Array<Record<string, any>>;
}

const finished = (list: Array<Record<string, any>>) => list.filter((e) => e.status !== 'running');

describe('scenarios CRUD and states', () => {
  it('creates inactive scenarios, activates, deactivates, edits and deletes them', async () => {
    const created = await t.req('POST', '/scenarios', { body: { name: 'Draft', trigger: { type: 'manual' }, steps: [{ type: 'delay', ms: 1 }] } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      _id: expect.any(String), name: 'Draft', active: false, trigger: { type: 'manual' }, steps: [{ type: 'delay', ms: 1 }],
      createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    const id = created.body._id;
    const on = await t.req('POST', `/scenarios/${id}/activate`);
    expect(on.status).toBe(200);
    expect(on.body.active).toBe(true);
    expect(on.body.runAs).toBeUndefined();
    const edited = await t.req('PUT', `/scenarios/${id}`, { body: { name: 'Renamed' } });
    expect(edited.body).toMatchObject({ name: 'Renamed', active: true, steps: [{ type: 'delay', ms: 1 }] });
    // An invalid edit of an active scenario is refused and changes nothing.
    const bad = await t.req('PATCH', `/scenarios/${id}`, { body: { steps: [{ type: 'teleport' }] } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.field).toBe('steps.0.type');
    expect((await t.req('GET', `/scenarios/${id}`)).body.steps).toEqual([{ type: 'delay', ms: 1 }]);
    // `active` moves only through activate / deactivate.
    expect((await t.req('PUT', `/scenarios/${id}`, { body: { active: false } })).body.error.details).toMatchObject({ field: 'active', reason: 'read_only' });
    expect((await t.req('POST', '/scenarios', { body: { name: 'x', active: true } })).status).toBe(422);
    const off = await t.req('POST', `/scenarios/${id}/deactivate`);
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    // An inactive draft may be saved incomplete.
    expect((await t.req('PUT', `/scenarios/${id}`, { body: { steps: [{ type: 'http' }] } })).status).toBe(200);
    const list = await t.req('GET', '/scenarios');
    expect(list.body.meta.total).toBe(1);
    expect((await t.req('DELETE', `/scenarios/${id}`)).status).toBe(204);
    for (const path of [`/scenarios/${id}`, `/scenarios/${id}/executions`]) expect((await t.req('GET', path)).status).toBe(404);
    for (const action of ['activate', 'deactivate', 'run']) expect((await t.req('POST', `/scenarios/${id}/${action}`)).status).toBe(404);
  });

  it('refuses to activate an invalid scenario (422)', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ trigger: { type: 'schedule', cron: 'every tuesday' }, steps: [{ type: 'delay', ms: 1 }] }, 'trigger.cron'],
      [{ trigger: { type: 'event', events: ['record.nope'] }, steps: [{ type: 'delay', ms: 1 }] }, 'trigger.events.0'],
      [{ trigger: { type: 'manual' }, steps: [{ type: 'teleport' }] }, 'steps.0.type'],
      [{ trigger: { type: 'manual' }, steps: [{ type: 'http', method: 'POST' }] }, 'steps.0.url'],
      [{ trigger: { type: 'manual' }, steps: [{ type: 'http', url: 'ftp://x' }] }, 'steps.0.url'],
      [{ trigger: { type: 'manual' }, steps: [{ type: 'delay', ms: 10 * 60 * 1000 }] }, 'steps.0.ms'],
      [{ trigger: { type: 'manual' }, steps: [{ type: 'record.create', data: {} }] }, 'steps.0.collection'],
      [{ trigger: { type: 'manual' }, steps: [{ type: 'http', url: 'http://x.test', headers: { a: '{{secrets.NOPE}}' } }] }, 'steps.0'],
      [{ trigger: { type: 'manual' }, steps: [{ type: 'http', url: 'http://x.test/{{steps.0.output.id}}' }] }, 'steps.0'],
      [{ trigger: { type: 'manual' }, steps: [{ type: 'http', url: 'http://x.test/{{process.env}}' }] }, 'steps.0'],
      [{ trigger: { type: 'manual' }, steps: [] }, 'steps'],
    ];
    for (const [body, field] of cases) {
      const id = await scenario({ name: 'bad', ...body }, false);
      const res = await t.req('POST', `/scenarios/${id}/activate`);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.field, JSON.stringify(body)).toBe(field);
      expect((await t.req('POST', `/scenarios/${id}/run`)).status).toBe(422);
      expect((await t.req('GET', `/scenarios/${id}`)).body.active).toBe(false);
    }
    expect((await t.req('POST', '/scenarios', { body: { name: 'x', trigger: { type: 'sometimes' } } })).status).toBe(422);
    expect((await t.req('POST', '/scenarios', { body: { trigger: { type: 'manual' } } })).body.error.details.field).toBe('name');
  });

  it('is admin only', async () => {
    const user = (await t.user()).token;
    const id = await scenario({ name: 'a', steps: [{ type: 'delay', ms: 1 }] }, false);
    expect((await t.req('GET', '/scenarios', { token: null })).status).toBe(401);
    for (const [method, path] of [['GET', '/scenarios'], ['POST', '/scenarios'], ['POST', `/scenarios/${id}/activate`], ['POST', `/scenarios/${id}/run`], ['GET', `/scenarios/${id}/executions`], ['DELETE', `/scenarios/${id}`]]) {
      expect((await t.req(method, path, { token: user, body: method === 'POST' ? {} : undefined })).status, `${method} ${path}`).toBe(403);
    }
  });
});

describe('scenario executions', () => {
  it('runs an event-triggered http step with a secret: the receiver sees it, the execution shows ***', async () => {
    rx.respond = (r) => ({ status: 200, body: `echo ${r.headers.authorization}` });
    const id = await scenario({
      name: 'Notify', trigger: { type: 'event', events: ['record.created'], filter: { collection: 'orders' } },
      steps: [{ type: 'http', method: 'POST', url: `${rx.url}/orders/{{event.data._id}}`, headers: { Authorization: 'Bearer {{secrets.API_TOKEN}}' }, body: { total: '{{event.data.total}}', order: '{{event.data}}' } }],
    });
    const rec = await t.req('POST', '/database/orders', { body: { total: 42 } });
    expect(rec.status).toBe(201);
    await t.req('POST', '/database/audit', { body: { total: 1 } }); // other collection: no run

    const [exec] = await waitFor(async () => { const l = finished(await executions(id)); return l.length === 1 && l; });
    expect(rx.received).toHaveLength(1);
    expect(rx.received[0].headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(rx.received[0].url).toBe(`/orders/${rec.body._id}`);
    expect(JSON.parse(rx.received[0].body)).toEqual({ total: 42, order: expect.objectContaining({ _id: rec.body._id, total: 42 }) });

    expect(exec).toMatchObject({
      scenarioId: id, status: 'succeeded', error: null, trigger: { type: 'event', event: 'record.created', collection: 'orders' },
      steps: [{ type: 'http', status: 'succeeded', error: null, output: { status: 200, body: 'echo Bearer ***', request: { headers: { authorization: 'Bearer ***' } } } }],
    });
    expect(typeof exec.durationMs).toBe('number');
    expect(exec.finishedAt >= exec.startedAt).toBe(true);
  });

  it('passes outputs between steps and writes records through the database service', async () => {
    rx.respond = () => ({ status: 200, body: JSON.stringify({ id: 'ext-7', items: [{ sku: 'A1' }] }), contentType: 'application/json; charset=utf-8' });
    const id = await scenario({
      name: 'Chain', trigger: { type: 'manual' },
      steps: [
        { type: 'http', url: `${rx.url}/lookup` },
        { type: 'record.create', collection: 'audit', data: { ref: '{{steps.0.output.body}}', sku: '{{steps.0.output.body.items.0.sku}}', proto: '{{steps.0.output.__proto__}}' } },
        { type: 'record.update', collection: 'audit', id: '{{steps.1.output._id}}', data: { note: 'updated {{steps.0.output.status}}' } },
        { type: 'delay', ms: 20 },
        { type: 'record.delete', collection: 'audit', id: '{{steps.1.output._id}}' },
      ],
    });
    const run = await t.req('POST', `/scenarios/${id}/run`);
    expect(run.status).toBe(201);
    expect(run.body.status, JSON.stringify(run.body)).toBe('succeeded');
    expect(run.body.trigger).toEqual({ type: 'manual', by: expect.any(String) });
    const [, created, updated, delayed, deleted] = run.body.steps;
    expect(created.output).toMatchObject({ ref: { id: 'ext-7', items: [{ sku: 'A1' }] }, sku: 'A1', proto: null });
    expect(updated.output).toMatchObject({ _id: created.output._id, note: 'updated 200' });
    expect(delayed.output).toEqual({ waitedMs: 20 });
    expect(deleted.output).toEqual({ deleted: true, collection: 'audit', id: created.output._id });
    expect((await t.req('GET', `/database/audit/${created.output._id}`)).status).toBe(404);
    expect((await executions(id))[0]._id).toBe(run.body._id);
  });

  it('fails the execution at a failing step, skips the rest, and leaves other scenarios alone', async () => {
    rx.respond = (r) => (r.url === '/bad' ? { status: 500, body: `no ${SECRET}` } : { status: 200, body: 'fine' });
    const failing = await scenario({
      name: 'Fails', trigger: { type: 'event', events: ['record.*'], filter: { collection: 'orders' } },
      steps: [{ type: 'http', url: `${rx.url}/bad`, headers: { 'x-key': '{{secrets.API_TOKEN}}' } }, { type: 'record.create', collection: 'audit', data: { never: true } }],
    });
    const fine = await scenario({
      name: 'Fine', trigger: { type: 'event', events: ['record.created'], filter: { collection: 'orders' } },
      steps: [{ type: 'http', url: `${rx.url}/good` }],
    });
    await t.req('POST', '/database/orders', { body: { total: 1 } });
    const [bad] = await waitFor(async () => { const l = finished(await executions(failing)); return l.length === 1 && l; });
    expect(bad.status).toBe('failed');
    expect(bad.error).toMatch(/^Step 0 \(http\) failed: HTTP 500/);
    expect(bad.steps).toMatchObject([
      { type: 'http', status: 'failed', output: { status: 500, body: 'no ***' }, error: expect.stringContaining('HTTP 500') },
      { type: 'record.create', status: 'skipped', output: null, error: null },
    ]);
    const [good] = await waitFor(async () => { const l = finished(await executions(fine)); return l.length === 1 && l; });
    expect(good.status).toBe('succeeded');
    expect((await t.req('GET', '/database/audit?filter[never]=true')).body.meta.total).toBe(0);

    // A record step that breaks a rule fails with the service's reason.
    const missing = await scenario({ name: 'Missing', steps: [{ type: 'record.update', collection: 'audit', id: 'nothere', data: {} }] });
    const run = await t.req('POST', `/scenarios/${missing}/run`);
    expect(run.body).toMatchObject({ status: 'failed', steps: [{ status: 'failed', error: expect.stringContaining('NOT_FOUND') }] });
  });

  it('stops a scenario that triggers itself with a depth bound', async () => {
    const id = await scenario({
      name: 'Loop', trigger: { type: 'event', events: ['record.created'], filter: { collection: 'items' } },
      steps: [{ type: 'record.create', collection: 'items', data: { from: '{{event.data._id}}' } }],
    });
    await t.req('POST', '/database/items', { body: { seed: true } });
    const list = await waitFor(async () => { const l = finished(await executions(id)); return l.length === 4 && l; });
    // Four items (the seed and three made by runs), each of which started one run: the chain
    // has ended, since the stopped run made nothing.
    expect((await t.req('GET', '/database/items?limit=0')).body.meta.total).toBe(4);
    const all = await executions(id);
    expect(all).toHaveLength(4);
    expect(all.filter((e) => e.status === 'succeeded')).toHaveLength(3);
    const stopped = list.find((e) => e.status === 'failed')!;
    expect(stopped.error).toMatch(/chain of 3 scenario steps/);
    expect(stopped.steps).toEqual([]);
  });

  it('stops a loop through this server\'s own HTTP API with a rate bound', async () => {
    await t.req('POST', '/database', { body: { _id: 'pings', setting: { read: 'private', write: 'private', update: 'private' } } });
    await t.req('POST', '/credentials', { body: { name: 'ADMIN_TOKEN', value: t.adminToken } });
    const id = await scenario({
      name: 'HTTP loop', trigger: { type: 'event', events: ['record.created'], filter: { collection: 'pings' } },
      steps: [{ type: 'http', method: 'POST', url: `${t.api}/database/pings`, headers: { authorization: 'Bearer {{secrets.ADMIN_TOKEN}}' }, body: { n: 1 } }],
    });
    await t.req('POST', '/database/pings', { body: { n: 0 } });
    const stopped = await waitFor(async () => {
      const l = (await t.req('GET', `/scenarios/${id}/executions?filter[status]=failed`)).body.data;
      return l.length === 1 && l[0];
    }, 25_000, 'the rate bound');
    expect(stopped.error).toMatch(/more than 300 event-triggered executions/);
    expect(stopped.steps).toEqual([]); // the stopped run made no ping, so the chain has ended
    // The run before it may still be storing its end.
    await waitFor(async () => (await t.req('GET', `/scenarios/${id}/executions?filter[status]=running&limit=0`)).body.meta.total === 0, 10_000, 'the last runs to end');
    expect((await t.req('GET', `/scenarios/${id}/executions?limit=0`)).body.meta.total).toBe(301);
    expect((await t.req('GET', '/database/pings?limit=0')).body.meta.total).toBe(301);
    expect((await t.req('GET', `/scenarios/${id}/executions`)).text).not.toContain(t.adminToken);
  });

  it('runs schedule triggers (cron with seconds) until deactivated', async () => {
    const metronome = await startMetronome(t.api, t.adminToken, rx);
    const ticks = () => rx.received.filter((r) => r.url === '/tick').length;
    const id = await scenario({ name: 'Tick', trigger: { type: 'schedule', cron: '* * * * * *' }, steps: [{ type: 'http', url: `${rx.url}/tick` }] });
    const list = await waitFor(async () => { const l = finished(await executions(id)); return l.length >= 2 && l; }, 5000);
    expect(list[0]).toMatchObject({ status: 'succeeded', trigger: { type: 'schedule', cron: '* * * * * *' } });
    expect((await t.req('POST', `/scenarios/${id}/deactivate`)).status).toBe(200);
    await metronome.waitBeats(1);
    const count = (await executions(id)).length;
    await metronome.waitBeats(2);
    expect((await executions(id)).length).toBe(count);
    // Re-scheduled after an edit of the cron while active; deleting stops it for good.
    await t.req('POST', `/scenarios/${id}/activate`);
    expect((await t.req('PUT', `/scenarios/${id}`, { body: { trigger: { type: 'schedule', cron: '*/1 * * * * *' } } })).status).toBe(200);
    await waitFor(async () => (await executions(id)).length > count);
    expect((await t.req('DELETE', `/scenarios/${id}`)).status).toBe(204);
    await metronome.waitBeats(1);
    const after = ticks();
    await metronome.waitBeats(2);
    expect(ticks()).toBe(after);
    await metronome.stop();
  });

  it('sends chat messages through the chats service', async () => {
    const channel = await t.req('POST', '/chats/channels', { body: { name: 'alerts' } });
    expect(channel.status).toBe(201);
    const id = await scenario({ name: 'Say', steps: [{ type: 'message.send', channelId: channel.body._id, text: 'Deploy done' }] });
    const run = await t.req('POST', `/scenarios/${id}/run`);
    expect(run.body.status, JSON.stringify(run.body)).toBe('succeeded');
    expect(run.body.steps[0].output).toMatchObject({ channelId: channel.body._id, text: 'Deploy done' });
    const messages = await t.req('GET', `/chats/${channel.body._id}/messages`);
    expect(messages.body.data.map((m: { text: string }) => m.text)).toContain('Deploy done');
  });

  it('masks secret values in executions, whatever step output carries them', async () => {
    const id = await scenario({
      name: 'Leaky', steps: [{ type: 'record.create', collection: 'audit', data: { copied: 'k={{secrets.API_TOKEN}}', json: { nested: ['{{secrets.API_TOKEN}}'] } } }],
    });
    const run = await t.req('POST', `/scenarios/${id}/run`);
    expect(run.status).toBe(201);
    expect(run.text).not.toContain(SECRET);
    expect(run.body.steps[0].output).toMatchObject({ copied: 'k=***', json: { nested: ['***'] } });
    const list = await t.req('GET', `/scenarios/${id}/executions`);
    expect(list.text).not.toContain(SECRET);
    for (const path of ['/credentials', '/scenarios']) expect((await t.req('GET', path)).text).not.toContain(SECRET);
  });
});
