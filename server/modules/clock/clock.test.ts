// A workspace's clock over HTTP: set, frozen, advanced, back to real time, and everything
// time-based in the workspace following it. No test waits for real time to pass: every expiry,
// window, tick and retry here is minutes or days away unless the clock is moved.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import jwt from 'jsonwebtoken';
import { startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';
import { startReceiver, waitFor, type Receiver } from '../../test/receiver.js';

let t: TestServer;
let rx: Receiver;
const CLOCK = '/workspaces/demo/clock';
const MIN = 60_000;

beforeAll(async () => {
  // Retries a minute apart and a login limit of 3: neither happens by itself during the tests.
  t = await startTestServer({ loginRateLimit: 3, webhookRetryDelays: [MIN, MIN] });
  rx = await startReceiver();
  const notes = await t.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'public', write: 'public', update: 'private' } } });
  if (notes.status !== 201) throw new Error(`could not create the collection: ${notes.text}`);
});
afterAll(async () => { await rx?.close(); await t?.close(); });
beforeEach(async () => { await remintAdmin(await t.consoleReq('DELETE', CLOCK)); rx.received.length = 0; rx.respond = () => ({ status: 200, body: 'ok' }); });

/** A fresh admin token, minted in the workspace's time: the harness's own expires when the clock
 *  is moved past its lifetime, as any token does. */
async function remintAdmin<T>(res: T): Promise<T> {
  t.adminToken = (await t.consoleReq('POST', '/workspaces/demo/token')).body.token;
  return res;
}
const freezeAt = async (iso: string) => remintAdmin(await t.consoleReq('PUT', CLOCK, { now: iso, frozen: true }));
const advance = async (ms: number) => remintAdmin(await t.consoleReq('POST', `${CLOCK}/advance`, { ms }));
const login = (email: string, password: string) => t.req('POST', '/auth/login', { token: null, body: { email, password } });

describe('the clock API', () => {
  it('reads real time by default, sets, freezes, advances, goes backwards while frozen, and returns to real time', async () => {
    const first = await t.consoleReq('GET', CLOCK);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ real: true, frozen: false });
    expect(Math.abs(Date.parse(first.body.now) - Date.now())).toBeLessThan(5000);

    const set = await freezeAt('2030-01-01T00:00:00.000Z');
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ now: '2030-01-01T00:00:00.000Z', frozen: true, real: false });
    expect((await t.consoleReq('GET', CLOCK)).body.now).toBe('2030-01-01T00:00:00.000Z');

    expect((await advance(90_000)).body).toMatchObject({ now: '2030-01-01T00:01:30.000Z', frozen: true });
    // Backwards while frozen is allowed.
    expect((await freezeAt('2029-12-31T23:00:00.000Z')).body.now).toBe('2029-12-31T23:00:00.000Z');
    // Unfrozen at a moment: it runs from there.
    const running = await t.consoleReq('PUT', CLOCK, { frozen: false });
    expect(running.body).toMatchObject({ frozen: false, real: false });
    expect(Date.parse(running.body.now)).toBeGreaterThanOrEqual(Date.parse('2029-12-31T23:00:00.000Z'));
    expect(Math.abs(Date.parse(running.body.now) - Date.now() - running.body.offsetMs)).toBeLessThan(1000);

    const back = await t.consoleReq('DELETE', CLOCK);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ real: true, frozen: false });
    expect(Math.abs(back.body.offsetMs)).toBeLessThan(5);
  });

  it('refuses a malformed now, an unknown field and a negative advance with 422 naming them', async () => {
    const bad = await t.consoleReq('PUT', CLOCK, { now: 'next tuesday' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'now' } });
    const unknown = await t.consoleReq('PUT', CLOCK, { speed: 2 });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details.field).toBe('speed');
    const negative = await advance(-1);
    expect(negative.status).toBe(422);
    expect(negative.body.error.details.field).toBe('ms');
    const missing = await t.consoleReq('POST', `${CLOCK}/advance`, {});
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toMatchObject({ field: 'ms', reason: 'required' });
    expect((await t.consoleReq('GET', CLOCK)).body.real).toBe(true); // nothing changed
    expect((await t.consoleReq('GET', '/workspaces/nope/clock')).status).toBe(404);
  });

  it('stamps createdAt / updatedAt, event timestamps and token iat with the set time', async () => {
    await freezeAt('2031-05-01T12:00:00.000Z');
    const rec = await t.req('POST', '/database/notes', { body: { title: 'then' } });
    expect(rec.status).toBe(201);
    expect(rec.body.createdAt).toBe('2031-05-01T12:00:00.000Z');
    await advance(1000);
    const upd = await t.req('PATCH', `/database/notes/${rec.body._id}`, { body: { title: 'later' } });
    expect(upd.body).toMatchObject({ createdAt: '2031-05-01T12:00:00.000Z', updatedAt: '2031-05-01T12:00:01.000Z' });
    const u = await t.user('Stamp');
    expect((await t.req('GET', `/users/${u._id}`)).body.createdAt).toBe('2031-05-01T12:00:01.000Z');
    const claims = jwt.decode(u.token) as { iat: number; exp: number };
    expect(claims.iat).toBe(Date.parse('2031-05-01T12:00:01.000Z') / 1000);
    expect(claims.exp - claims.iat).toBe(t.srv.config.tokenTtl);
    // The token works in the workspace's time (it would be far in the future by the machine's).
    expect((await t.req('GET', '/auth/me', { token: u.token })).status).toBe(200);

    await t.consoleReq('DELETE', CLOCK);
    const now = await t.req('POST', '/database/notes', { body: { title: 'now' } });
    expect(Math.abs(Date.parse(now.body.createdAt) - Date.now())).toBeLessThan(5000);
  });
});

describe('expiry follows the clock', () => {
  it('an access token is refused at once after an advance past its expiry', async () => {
    const u = await t.user('Expiring');
    await t.consoleReq('PUT', CLOCK, { frozen: true });
    expect((await t.req('GET', '/auth/me', { token: u.token })).status).toBe(200);
    await advance(t.srv.config.tokenTtl * 1000 - 2000);
    expect((await t.req('GET', '/auth/me', { token: u.token })).status).toBe(200);
    await advance(3000);
    const late = await t.req('GET', '/auth/me', { token: u.token });
    expect(late.status).toBe(401);
    expect(late.body.error.message).toMatch(/expired/i);
    // Back to real time: the token is valid again, its expiry not having come yet.
    await t.consoleReq('DELETE', CLOCK);
    expect((await t.req('GET', '/auth/me', { token: u.token })).status).toBe(200);
  });

  it('a refresh token expires after its lifetime of workspace time', async () => {
    const u = await t.user('Refresher');
    const session = (await login(u.email, u.password)).body;
    await t.consoleReq('PUT', CLOCK, { frozen: true });
    const ok = await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: session.refreshToken } });
    expect(ok.status).toBe(200);
    await advance(t.srv.config.refreshTtl * 1000 + 1000);
    const expired = await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: ok.body.refreshToken } });
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toMatch(/expired/i);
  });

  it('a password reset token expires after an hour of workspace time', async () => {
    const u = await t.user('Forgetful');
    await t.consoleReq('PUT', CLOCK, { frozen: true });
    await t.req('POST', '/auth/forgot-password', { token: null, body: { email: u.email } });
    const mail = (await t.consoleReq('GET', `/workspaces/demo/outbox?filter[to]=${encodeURIComponent(u.email)}`)).body.data[0];
    expect(mail.token).toMatch(/^hbp_/);
    await advance(60 * MIN + 1000);
    const late = await t.req('POST', '/auth/reset-password', { token: null, body: { token: mail.token, password: 'new-password-1' } });
    expect(late.status).toBe(422);
    expect(late.body.error.details).toMatchObject({ field: 'token', reason: 'invalid' });
    expect((await login(u.email, u.password)).status).toBe(200);
  });

  it('the failed-login window passes with an advance', async () => {
    const u = await t.user('Guessed');
    await t.consoleReq('PUT', CLOCK, { frozen: true });
    for (let i = 0; i < 3; i++) expect((await login(u.email, 'wrong-password')).status).toBe(401);
    const limited = await login(u.email, u.password);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(50);
    await advance(30_000);
    expect((await login(u.email, u.password)).status).toBe(429);
    await advance(31_000);
    expect((await login(u.email, u.password)).status).toBe(200);
  });
});

describe('what waits follows the clock', () => {
  it('a cron scenario fires once per tick passed by an advance, in order', async () => {
    await freezeAt('2032-03-01T10:00:30.000Z');
    rx.respond = (_req, n) => ({ status: 200, body: String(n) });
    const s = await t.req('POST', '/scenarios', { body: { name: 'Every minute', trigger: { type: 'schedule', cron: '* * * * *' }, steps: [{ type: 'http', method: 'POST', url: `${rx.url}/tick` }] } });
    expect(s.status).toBe(201);
    expect((await t.req('POST', `/scenarios/${s.body._id}/activate`)).status).toBe(200);
    expect((await advance(3 * MIN)).body.now).toBe('2032-03-01T10:03:30.000Z');
    const runs = await waitFor(async () => {
      const list = (await t.req('GET', `/scenarios/${s.body._id}/executions`)).body.data as Array<{ status: string; trigger: { firedAt: string }; steps: Array<{ output: { body: string } }> }>;
      return list.length === 3 && list.every((e) => e.status === 'succeeded') && list;
    }, 10_000, 'three scheduled runs');
    const byTick = [...runs].sort((a, b) => a.trigger.firedAt.localeCompare(b.trigger.firedAt));
    expect(byTick.map((e) => e.trigger.firedAt)).toEqual(['2032-03-01T10:01:00.000Z', '2032-03-01T10:02:00.000Z', '2032-03-01T10:03:00.000Z']);
    // The receiver numbered the calls as they came: the ticks ran in their order.
    expect(byTick.map((e) => e.steps[0].output.body)).toEqual(['1', '2', '3']);
    expect(rx.received).toHaveLength(3);
    await t.req('DELETE', `/scenarios/${s.body._id}`);
  });

  it('a delay step ends when the clock passes its end', async () => {
    await t.consoleReq('PUT', CLOCK, { frozen: true });
    const s = await t.req('POST', '/scenarios', { body: { name: 'Wait', steps: [{ type: 'delay', ms: 4 * MIN }, { type: 'record.create', collection: 'notes', data: { title: 'after the delay' } }] } });
    expect(s.status).toBe(201);
    const run = t.req('POST', `/scenarios/${s.body._id}/run`);
    await waitFor(async () => (await t.req('GET', `/scenarios/${s.body._id}/executions`)).body.data.length === 1, 5000, 'the execution to start');
    await advance(4 * MIN);
    const done = await run;
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ status: 'succeeded' });
    expect(done.body.steps[1].output.title).toBe('after the delay');
    await t.req('DELETE', `/scenarios/${s.body._id}`);
  });

  it('a webhook retry becomes due when the clock passes it', async () => {
    rx.respond = (_req, n) => ({ status: n === 1 ? 500 : 200, body: 'x' });
    const hook = await t.req('POST', '/webhooks', { body: { name: 'Retry', url: `${rx.url}/hook`, events: ['record.created'] } });
    expect(hook.status).toBe(201);
    await t.consoleReq('PUT', CLOCK, { frozen: true });
    await t.req('POST', '/database/notes', { body: { title: 'retried' } });
    await waitFor(async () => (await t.req('GET', `/webhooks/${hook.body._id}/logs`)).body.data.length === 1, 5000, 'the first attempt');
    expect(rx.received).toHaveLength(1);
    await advance(MIN + 1000);
    const logs = await waitFor(async () => {
      const list = (await t.req('GET', `/webhooks/${hook.body._id}/logs`)).body.data;
      return list.length === 2 && list;
    }, 5000, 'the retry');
    expect(logs[0]).toMatchObject({ attempt: 2, status: 'succeeded' });
    expect(rx.received).toHaveLength(2);
    // The signature's timestamp is the machine's (receivers check it against their own time).
    expect(Math.abs(Number(rx.received[1].headers['webhook-timestamp']) * 1000 - Date.now())).toBeLessThan(60_000);
    await t.req('DELETE', `/webhooks/${hook.body._id}`);
  });
});

describe('the clock is no content', () => {
  it('snapshots and exports leave it out; a restore keeps the current one', async () => {
    await freezeAt('2033-01-01T00:00:00.000Z');
    expect((await t.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'clocked', overwrite: true })).status).toBe(201);
    const dump = await t.consoleReq('GET', '/workspaces/demo/export');
    expect(JSON.stringify(dump.body)).not.toContain('frozenAt');
    await t.consoleReq('DELETE', CLOCK);
    expect((await t.consoleReq('POST', '/workspaces/demo/snapshots/clocked/restore')).status).toBe(200);
    expect((await t.consoleReq('GET', CLOCK)).body.real).toBe(true);
    await freezeAt('2034-01-01T00:00:00.000Z');
    expect((await t.consoleReq('POST', '/workspaces/demo/snapshots/clocked/restore')).status).toBe(200);
    expect((await t.consoleReq('GET', CLOCK)).body).toMatchObject({ now: '2034-01-01T00:00:00.000Z', frozen: true });
  });

  it('a fork starts on the machine\'s time, and its ttl follows its own clock', async () => {
    await freezeAt('2036-01-01T00:00:00.000Z');
    // An hour of idle time: never reached by the machine's clock during this test.
    const fork = await t.consoleReq('POST', '/workspaces/demo/fork', { _id: 'clockedFork', ttl: 3600 });
    expect(fork.status).toBe(201);
    expect((await t.consoleReq('GET', '/workspaces/clockedFork/clock')).body.real).toBe(true);
    await t.consoleReq('PUT', '/workspaces/clockedFork/clock', { frozen: true });
    await t.consoleReq('POST', '/workspaces/clockedFork/clock/advance', { ms: 3_000_000 });
    expect((await t.consoleReq('GET', '/workspaces')).body.data.map((w: { _id: string }) => w._id)).toContain('clockedFork');
    // Every request to the fork (this advance too, before it moves the clock) starts its idle
    // hour again: an advance of more than the ttl passes it.
    await t.consoleReq('POST', '/workspaces/clockedFork/clock/advance', { ms: 3_601_000 });
    await waitFor(async () => !(await t.consoleReq('GET', '/workspaces')).body.data.some((w: { _id: string }) => w._id === 'clockedFork'), 5000, 'the idle fork to go');
    // The source keeps its own clock.
    expect((await t.consoleReq('GET', CLOCK)).body.now).toBe('2036-01-01T00:00:00.000Z');
  });

  it('survives a restart of an on-disk server', async () => {
    const data = tempDataDir();
    try {
      const a = await startTestServer({ data: data.dir });
      await a.consoleReq('PUT', CLOCK, { now: '2035-06-01T00:00:00.000Z', frozen: true });
      await a.close();
      const b = await startTestServer({ data: data.dir });
      expect((await b.consoleReq('GET', CLOCK)).body).toMatchObject({ now: '2035-06-01T00:00:00.000Z', frozen: true });
      await b.close();
    } finally {
      data.remove();
    }
  });
});
