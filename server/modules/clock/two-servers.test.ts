// Two servers on one PostgreSQL database share a workspace's clock: a clock set through one is
// the time of the other, and the ticks an advance passes fire once in all, in order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVER, type TestServer } from '../../test/harness.js';
import { useTwoServers } from '../../test/two-servers.js';
import { startReceiver, waitFor, type Receiver } from '../../test/receiver.js';

const CLOCK = '/workspaces/demo/clock';

describe.skipIf(TEST_DRIVER !== 'postgres')('the clock across two servers on one database', () => {
  let a: TestServer;
  let b: TestServer;
  const pair = useTwoServers('clock');
  let rx: Receiver;

  beforeAll(async () => {
    ({ a, b } = pair);
    rx = await startReceiver();
  }, 60_000);

  afterAll(async () => {
    await rx?.close();
  });

  it('a clock set through one server is the time of the other', async () => {
    const set = await a.consoleReq('PUT', CLOCK, { now: '2040-02-02T00:00:00.000Z', frozen: true });
    expect(set.status).toBe(200);
    await waitFor(async () => (await b.consoleReq('GET', CLOCK)).body.now === '2040-02-02T00:00:00.000Z', 5000, 'the clock on the second server');
    a.adminToken = (await a.consoleReq('POST', '/workspaces/demo/token')).body.token;
    b.adminToken = (await b.consoleReq('POST', '/workspaces/demo/token')).body.token;
    await a.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'public', write: 'public', update: 'private' } } });
    await waitFor(async () => (await b.req('GET', '/database/notes')).status === 200, 5000, 'the collection on the second server');
    const rec = await b.req('POST', '/database/notes', { body: { title: 'b' } });
    expect(rec.body.createdAt).toBe('2040-02-02T00:00:00.000Z');
  });

  it('ticks passed by an advance through one server fire once in all, in order', async () => {
    rx.respond = (_req, n) => ({ status: 200, body: String(n) });
    const s = await a.req('POST', '/scenarios', { body: { name: 'Minutely', trigger: { type: 'schedule', cron: '* * * * *' }, steps: [{ type: 'http', method: 'POST', url: `${rx.url}/tick` }] } });
    expect((await a.req('POST', `/scenarios/${s.body._id}/activate`)).status).toBe(200);
    // Both servers schedule it (b hears of it); the advance is made through b.
    await waitFor(async () => (await b.req('GET', `/scenarios/${s.body._id}`)).body.active === true, 5000, 'the scenario on the second server');
    await b.consoleReq('POST', `${CLOCK}/advance`, { ms: 2 * 60_000 + 1000 });
    const runs = await waitFor(async () => {
      const list = (await a.req('GET', `/scenarios/${s.body._id}/executions`)).body.data as Array<{ status: string; trigger: { firedAt: string }; steps: Array<{ output: { body: string } }> }>;
      return list.length >= 2 && list.every((e) => e.status === 'succeeded') && list;
    }, 10_000, 'two scheduled runs');
    const byTick = [...runs].sort((x, y) => x.trigger.firedAt.localeCompare(y.trigger.firedAt));
    expect(byTick.map((e) => e.trigger.firedAt)).toEqual(['2040-02-02T00:01:00.000Z', '2040-02-02T00:02:00.000Z']);
    expect(byTick.map((e) => e.steps[0].output.body)).toEqual(['1', '2']);
    expect(rx.received).toHaveLength(2);
  });

  it('a token expires on both servers after an advance through one', async () => {
    const u = await a.user('Both');
    expect((await b.req('GET', '/auth/me', { token: u.token })).status).toBe(200);
    await a.consoleReq('POST', `${CLOCK}/advance`, { ms: a.srv.config.tokenTtl * 1000 + 1000 });
    expect((await a.req('GET', '/auth/me', { token: u.token })).status).toBe(401);
    await waitFor(async () => (await b.req('GET', '/auth/me', { token: u.token })).status === 401, 5000, 'the expiry on the second server');
  });
});
