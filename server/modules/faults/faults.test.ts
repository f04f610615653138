// A workspace's injected faults over HTTP: error statuses for the first `times` or a seeded
// `rate` share of matching requests, latency, dropped realtime sockets, failed webhook
// deliveries, marks in the request log, validation, and what clears them.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';
import { startReceiver, waitFor, type Receiver } from '../../test/receiver.js';
import { TestSocket, realtimeUrl } from '../realtime/test-socket.js';

let t: TestServer;
let rx: Receiver;
const FAULTS = '/workspaces/demo/faults';

beforeAll(async () => {
  t = await startTestServer({ webhookRetryDelays: [20] });
  rx = await startReceiver();
  const notes = await t.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'public', write: 'public', update: 'private' } } });
  if (notes.status !== 201) throw new Error(`could not create the collection: ${notes.text}`);
});
afterAll(async () => { await rx?.close(); await t?.close(); });
beforeEach(async () => { await t.consoleReq('DELETE', FAULTS); rx.received.length = 0; });

const setFaults = (body: unknown) => t.consoleReq('PUT', FAULTS, body);
const logged = async () => (await t.consoleReq('GET', '/workspaces/demo/requests?limit=100')).body.data as Array<{ method: string; path: string; status: number; durationMs: number; fault?: Record<string, number> }>;

describe('fault rules', () => {
  it('refuses unknown fields, a rate outside 0..1 and rules that cannot apply, naming them', async () => {
    const cases: Array<[unknown, string]> = [
      [{ rules: [{ match: { path: '/database/*' }, status: 500, rate: 1.5 }] }, 'rules.0.rate'],
      [{ rules: [{ match: { path: '/database/*' }, status: 500, rate: -0.1 }] }, 'rules.0.rate'],
      [{ rules: [{ match: { path: '/database/*' }, status: 500, when: 'now' }] }, 'rules.0.when'],
      [{ rules: [{ match: { path: '/database/*', host: 'x' }, status: 500 }] }, 'rules.0.match.host'],
      [{ rules: [], extra: true }, 'extra'],
      [{ rules: [{ match: { path: '/x' }, status: 200 }] }, 'rules.0.status'],
      [{ rules: [{ match: { path: '/x' } }] }, 'rules.0.status'],
      [{ rules: [{ match: { method: 'FETCH' }, status: 500 }] }, 'rules.0.match.method'],
      [{ rules: [{ match: { realtime: true } }] }, 'rules.0.drop'],
      [{ rules: [{ match: { webhook: true } }] }, 'rules.0.status'],
      [{ rules: [{ match: { webhook: true }, status: 500, latencyMs: 5 }] }, 'rules.0.latencyMs'],
      [{ seed: 1.5, rules: [] }, 'seed'],
      [{}, 'rules'],
    ];
    for (const [body, field] of cases) {
      const res = await setFaults(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.field, JSON.stringify(body)).toBe(field);
    }
    expect((await t.consoleReq('GET', FAULTS)).body).toEqual({ seed: null, rules: [] });
    expect((await t.consoleReq('GET', '/workspaces/nope/faults')).status).toBe(404);
  });

  it('answers the first `times` matching requests with the status and INJECTED_FAULT, marked in the request log', async () => {
    const rec = await t.req('POST', '/database/notes', { body: { title: 'x' } });
    const set = await setFaults({ rules: [{ match: { method: 'get', path: '/database/notes/*' }, status: 503, times: 2 }] });
    expect(set.status).toBe(200);
    expect(set.body.rules[0]).toMatchObject({ match: { method: 'GET', path: '/database/notes/*' }, status: 503, times: 2, applied: 0 });
    const first = await t.req('GET', `/database/notes/${rec.body._id}`);
    expect(first.status).toBe(503);
    expect(first.body).toEqual({ error: { code: 'INJECTED_FAULT', message: expect.stringContaining('Injected fault'), details: { rule: 0 } } });
    // Not matched: another method, another path (the list is not under /database/notes/*).
    expect((await t.req('PATCH', `/database/notes/${rec.body._id}`, { body: { title: 'y' } })).status).toBe(200);
    expect((await t.req('GET', '/database/notes')).status).toBe(200);
    expect((await t.req('GET', `/database/notes/${rec.body._id}`)).status).toBe(503);
    expect((await t.req('GET', `/database/notes/${rec.body._id}`)).status).toBe(200); // times used up
    expect((await t.consoleReq('GET', FAULTS)).body.rules[0].applied).toBe(2);
    const log = await logged();
    const gets = log.filter((e) => e.method === 'GET' && e.path.endsWith(`/database/notes/${rec.body._id}`));
    expect(gets.map((e) => [e.status, e.fault ?? null])).toEqual([[200, null], [503, { rule: 0, status: 503 }], [503, { rule: 0, status: 503 }]]);
    expect(log.find((e) => e.method === 'PATCH')?.fault).toBeUndefined();
    // The log's list filters on the mark.
    const faulted = (await t.consoleReq('GET', '/workspaces/demo/requests?filter[fault.status]=503')).body;
    expect(faulted.meta.total).toBe(2);
    expect(faulted.data.every((e: { status: number }) => e.status === 503)).toBe(true);
  });

  it('draws a seeded rate share: the same seed gives the same sequence', async () => {
    const run = async (seed: number) => {
      await setFaults({ seed, rules: [{ match: { path: '/database/notes' }, status: 500, rate: 0.5 }] });
      const statuses: number[] = [];
      for (let i = 0; i < 24; i++) statuses.push((await t.req('GET', '/database/notes?limit=1')).status);
      return statuses;
    };
    const a = await run(42);
    const b = await run(42);
    const c = await run(7);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    const failed = a.filter((s) => s === 500).length;
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThan(24);
    expect(a.every((s) => s === 200 || s === 500)).toBe(true);
    expect((await t.consoleReq('GET', FAULTS)).body).toMatchObject({ seed: 7, rules: [{ rate: 0.5, applied: c.filter((s) => s === 500).length }] });
  });

  it('delays matching requests by latencyMs, and the first matching rule that fires applies', async () => {
    await setFaults({ seed: 1, rules: [
      { match: { path: '/database/notes', method: 'POST' }, status: 418 },
      { match: { path: '/database/**' }, latencyMs: 150 },
    ] });
    const slow = await t.req('GET', '/database/notes?limit=1');
    expect(slow.status).toBe(200);
    expect((await t.req('POST', '/database/notes', { body: { title: 'teapot' } })).status).toBe(418);
    const log = await logged();
    const get = log.find((e) => e.method === 'GET' && e.path.includes('/database/notes?limit=1'))!;
    expect(get.fault).toEqual({ rule: 1, latencyMs: 150 });
    expect(get.durationMs).toBeGreaterThanOrEqual(140); // the request waited the latency it was given
    expect(log.find((e) => e.method === 'POST')!.fault).toEqual({ rule: 0, status: 418 });
    // The console API is never faulted.
    expect((await t.consoleReq('GET', '/workspaces/demo/export')).status).toBe(200);
  });

  it('DELETE clears them: requests are answered as usual again', async () => {
    await setFaults({ rules: [{ match: { path: '/**' }, status: 500 }] });
    expect((await t.req('GET', '/database/notes')).status).toBe(500);
    expect((await t.consoleReq('DELETE', FAULTS)).status).toBe(204);
    expect((await t.req('GET', '/database/notes')).status).toBe(200);
    expect((await t.consoleReq('GET', FAULTS)).body).toEqual({ seed: null, rules: [] });
  });
});

describe('realtime and webhook faults', () => {
  it('drops the open sockets when set, then new ones for the first `times`', async () => {
    const open = await TestSocket.open(realtimeUrl(t.api, t.adminToken));
    expect(await open.subscribe('database:notes')).toMatchObject({ type: 'subscribed' });
    expect((await setFaults({ rules: [{ match: { realtime: true }, drop: true, times: 1 }] })).status).toBe(200);
    expect((await open.waitClose()).code).toBe(1006); // dropped, no close frame
    // The next new socket is dropped as it opens; the one after stays.
    const dropped = await TestSocket.open(realtimeUrl(t.api, t.adminToken)).catch(() => undefined);
    if (dropped) expect((await dropped.waitClose()).code).toBe(1006);
    const kept = await TestSocket.open(realtimeUrl(t.api, t.adminToken));
    expect(await kept.subscribe('database:notes')).toMatchObject({ type: 'subscribed' });
    const made = await t.req('POST', '/database/notes', { body: { title: 'live' } });
    expect((await kept.next((f) => f.type === 'event')).data._id).toBe(made.body._id);
    kept.close();
  });

  it('fails webhook deliveries as if the receiver answered the status, so the retry follows', async () => {
    const hook = await t.req('POST', '/webhooks', { body: { name: 'Faulted', url: `${rx.url}/hook`, events: ['record.created'] } });
    await setFaults({ rules: [{ match: { webhook: true }, status: 503, times: 1 }] });
    await t.req('POST', '/database/notes', { body: { title: 'hooked' } });
    const logs = await waitFor(async () => {
      const list = (await t.req('GET', `/webhooks/${hook.body._id}/logs`)).body.data;
      return list.length === 2 && list;
    }, 5000, 'the failed attempt and its retry');
    const [retry, first] = logs;
    expect(first).toMatchObject({ attempt: 1, status: 'failed', response: { status: 503 }, fault: { rule: 0 } });
    expect(first.error).toMatch(/Injected fault/);
    expect(retry).toMatchObject({ attempt: 2, status: 'succeeded' });
    expect(retry.fault).toBeUndefined();
    // Only the retry reached the receiver.
    expect(rx.received).toHaveLength(1);
    await t.req('DELETE', `/webhooks/${hook.body._id}`);
  });
});

describe('faults are no content', () => {
  it('snapshots, exports and forks leave them out; a restore keeps the current ones', async () => {
    await setFaults({ seed: 3, rules: [{ match: { path: '/nothing' }, status: 500 }] });
    expect((await t.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'faulted', overwrite: true })).status).toBe(201);
    expect(JSON.stringify((await t.consoleReq('GET', '/workspaces/demo/export')).body)).not.toContain('/nothing');
    const fork = await t.consoleReq('POST', '/workspaces/demo/fork', { _id: 'faultFree' });
    expect(fork.status).toBe(201);
    expect((await t.consoleReq('GET', '/workspaces/faultFree/faults')).body).toEqual({ seed: null, rules: [] });
    await t.consoleReq('DELETE', '/workspaces/faultFree');
    await t.consoleReq('DELETE', FAULTS);
    await t.consoleReq('POST', '/workspaces/demo/snapshots/faulted/restore');
    expect((await t.consoleReq('GET', FAULTS)).body.rules).toEqual([]);
    await setFaults({ seed: 4, rules: [{ match: { path: '/still' }, status: 500 }] });
    await t.consoleReq('POST', '/workspaces/demo/snapshots/faulted/restore');
    expect((await t.consoleReq('GET', FAULTS)).body).toMatchObject({ seed: 4, rules: [{ match: { path: '/still' } }] });
  });

  it('survive a restart of an on-disk server, with their seed', async () => {
    const data = tempDataDir();
    try {
      const a = await startTestServer({ data: data.dir });
      await a.consoleReq('PUT', FAULTS, { seed: 9, rules: [{ match: { path: '/database' }, status: 507, times: 1 }] });
      await a.close();
      const b = await startTestServer({ data: data.dir });
      expect((await b.consoleReq('GET', FAULTS)).body).toMatchObject({ seed: 9, rules: [{ status: 507, applied: 0 }] });
      expect((await b.req('GET', '/database')).status).toBe(507);
      expect((await b.req('GET', '/database')).status).toBe(200);
      await b.close();
    } finally {
      data.remove();
    }
  });
});
