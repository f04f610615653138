// A realtime socket ends with its session, at once and without the client saying anything: each
// case opens a socket that only listens (no frame is sent after subscribing, and the heartbeat
// is 30 s away), ends the session over REST, and awaits the close (1008); events written after
// the session ended never reach the socket. Also the bound on sockets per principal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestUser } from '../../test/harness.js';
import { TestSocket, realtimeUrl, type Frame } from './test-socket.js';

let t: TestServer;
const sockets: TestSocket[] = [];

beforeAll(async () => {
  t = await startTestServer();
  const made = await t.req('POST', '/database', { body: { _id: 'feed', setting: { read: 'public', write: 'public', update: 'private' } } });
  expect(made.status).toBe(201);
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await t.close();
});

async function open(token: string | null, server = t) {
  const s = await TestSocket.open(realtimeUrl(server.api, token));
  sockets.push(s);
  return s;
}

async function signIn(server: TestServer, email: string, password: string) {
  const res = await server.req('POST', '/auth/login', { token: null, body: { email, password } });
  expect(res.status).toBe(200);
  return res.body as { token: string; refreshToken: string; user: { _id: string } };
}

const isEvent = (pred: (f: Frame) => boolean = () => true) => (f: Frame) => f.type === 'event' && pred(f);

/** A socket following `database:feed` and a channel of `owner`, listening only. */
async function listener(token: string, channelId: string, server = t) {
  const s = await open(token, server);
  expect(await s.subscribe('database:feed')).toMatchObject({ type: 'subscribed' });
  expect(await s.subscribe(`chat:${channelId}`)).toMatchObject({ type: 'subscribed' });
  return s;
}

async function channelOf(owner: { token: string }, members: string[] = [], server = t) {
  const res = await server.req('POST', '/chats/channels', { token: owner.token, body: { name: 'room', members } });
  expect(res.status).toBe(201);
  return res.body._id as string;
}

/** Awaits the close of `ended`, then writes a record and a chat message and proves through the
 *  `witness` (a socket that stays open) that both went out, while `ended` received neither:
 *  nothing written after the session ended reached it. */
async function closedAndDeaf(ended: TestSocket, witness: TestSocket, channelId: string, poster: { token: string }, server = t) {
  expect(await ended.waitClose()).toEqual({ code: 1008, reason: 'Session ended; sign in again' });
  const rec = await server.req('POST', '/database/feed', { token: null, body: { text: 'after the end' } });
  expect(rec.status).toBe(201);
  const msg = await server.req('POST', `/chats/${channelId}/messages`, { token: poster.token, body: { text: 'private, after the end' } });
  expect(msg.status).toBe(201);
  await witness.next(isEvent((f) => f.data._id === rec.body._id));
  await witness.next(isEvent((f) => f.data._id === msg.body._id));
  const seen = ended.frames.filter((f) => f.type === 'event').map((f) => f.data._id);
  expect(seen).not.toContain(rec.body._id);
  expect(seen).not.toContain(msg.body._id);
}

describe('a socket closes as soon as its session ends', () => {
  let owner: TestUser;
  beforeAll(async () => { owner = await t.user('Owner'); });

  it('sign-out', async () => {
    const u = await t.user('Leaver');
    const id = await channelOf(owner, [u._id]);
    const s = await listener(u.token, id);
    const witness = await listener(owner.token, id);
    expect((await t.req('POST', '/auth/logout', { token: u.token, body: {} })).status).toBe(204);
    await closedAndDeaf(s, witness, id, owner);
  });

  it('sign-out with the refresh token alone', async () => {
    const u = await t.user('Refresher');
    const session = await signIn(t, u.email, u.password);
    const id = await channelOf(owner, [u._id]);
    const s = await listener(session.token, id);
    const kept = await listener(u.token, id); // another session of the same user stays
    expect((await t.req('POST', '/auth/logout', { token: null, body: { refreshToken: session.refreshToken } })).status).toBe(204);
    await closedAndDeaf(s, kept, id, owner);
    expect(kept.closed).toBeUndefined();
  });

  it('a refresh token presented twice ends its session and its sockets', async () => {
    const u = await t.user('Copied');
    const session = await signIn(t, u.email, u.password);
    const id = await channelOf(owner, [u._id]);
    const s = await listener(session.token, id);
    const witness = await listener(owner.token, id);
    expect((await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: session.refreshToken } })).status).toBe(200);
    expect((await t.req('POST', '/auth/refresh', { token: null, body: { refreshToken: session.refreshToken } })).status).toBe(401);
    await closedAndDeaf(s, witness, id, owner);
  });

  it('password change: the other sessions\' sockets close, the caller\'s stays', async () => {
    const u = await t.user('Changer');
    const other = await signIn(t, u.email, u.password);
    const id = await channelOf(owner, [u._id]);
    const s = await listener(other.token, id);
    const mine = await listener(u.token, id);
    const changed = await t.req('PUT', '/auth/change-password', { token: u.token, body: { currentPassword: u.password, newPassword: 'another-password-9' } });
    expect(changed.status).toBe(200);
    await closedAndDeaf(s, mine, id, owner);
    expect(mine.closed).toBeUndefined();
  });

  it('password reset', async () => {
    const u = await t.user('Forgetful');
    const id = await channelOf(owner, [u._id]);
    const s = await listener(u.token, id);
    const witness = await listener(owner.token, id);
    expect((await t.req('POST', '/auth/forgot-password', { token: null, body: { email: u.email } })).status).toBe(202);
    const email = (await t.consoleReq('GET', `/workspaces/demo/outbox?filter[to]=${encodeURIComponent(u.email)}`)).body.data[0];
    expect((await t.req('POST', '/auth/reset-password', { token: null, body: { token: email.token, password: 'brand-new-pass-1' } })).status).toBe(204);
    await closedAndDeaf(s, witness, id, owner);
  });

  it('user deletion', async () => {
    const u = await t.user('Deleted');
    const id = await channelOf(owner, [u._id]);
    const s = await listener(u.token, id);
    const witness = await listener(owner.token, id);
    expect((await t.req('DELETE', `/users/${u._id}`)).status).toBe(204);
    await closedAndDeaf(s, witness, id, owner);
  });

  it('impersonation: its admin demoted', async () => {
    const admin = await t.user('Impersonator', { role: 'admin' });
    const target = await t.user('Target');
    const imp = await t.req('POST', `/auth/impersonate/${target._id}`, { token: admin.token });
    expect(imp.status).toBe(200);
    const id = await channelOf(owner, [target._id]);
    const s = await listener(imp.body.token, id);
    const witness = await listener(owner.token, id);
    expect((await t.req('PATCH', `/users/${admin._id}`, { body: { role: 'user' } })).status).toBe(200);
    await closedAndDeaf(s, witness, id, owner);
    expect((await t.req('GET', '/auth/me', { token: imp.body.token })).status).toBe(401);
  });

  it('impersonation: its admin deleted', async () => {
    const admin = await t.user('Impersonator 2', { role: 'admin' });
    const target = await t.user('Target 2');
    const imp = await t.req('POST', `/auth/impersonate/${target._id}`, { token: admin.token });
    const id = await channelOf(owner, [target._id]);
    const s = await listener(imp.body.token, id);
    const witness = await listener(owner.token, id);
    expect((await t.req('DELETE', `/users/${admin._id}`)).status).toBe(204);
    await closedAndDeaf(s, witness, id, owner);
  });

  it('role change: a demoted admin stops receiving a channel he is not a member of, with nothing in between', async () => {
    const admin = await t.user('Demoted', { role: 'admin' });
    const id = await channelOf(owner);
    const s = await open(admin.token);
    expect(await s.subscribe(`chat:${id}`)).toMatchObject({ type: 'subscribed' });
    const witness = await listener(owner.token, id);
    expect((await t.req('PATCH', `/users/${admin._id}`, { body: { role: 'user' } })).status).toBe(200);
    // Posted right after the demotion answered: it must not reach him.
    const msg = await t.req('POST', `/chats/${id}/messages`, { token: owner.token, body: { text: 'not for him' } });
    expect(msg.status).toBe(201);
    expect(await s.next((f) => f.type === 'unsubscribed')).toMatchObject({ topic: `chat:${id}` });
    await witness.next(isEvent((f) => f.data._id === msg.body._id));
    const later = await t.req('POST', `/chats/${id}/messages`, { token: owner.token, body: { text: 'still not' } });
    await witness.next(isEvent((f) => f.data._id === later.body._id));
    expect(s.frames.filter((f) => f.type === 'event')).toEqual([]);
    expect(s.closed).toBeUndefined(); // his own session goes on
  });
});

describe('a socket closes when the workspace content is replaced and its session is gone', () => {
  let w: TestServer;
  beforeAll(async () => { w = await startTestServer(); });
  afterAll(async () => { await w.close(); });

  /** A user made after `before`, listening; the replacement must end his socket. */
  async function userListening() {
    const u = await w.user('Short-lived');
    const s = await open(u.token, w);
    const id = await channelOf(u, [], w);
    expect(await s.subscribe(`chat:${id}`)).toMatchObject({ type: 'subscribed' });
    return s;
  }

  it('snapshot restore', async () => {
    expect((await w.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'before' })).status).toBe(201);
    const s = await userListening();
    expect((await w.consoleReq('POST', '/workspaces/demo/snapshots/before/restore')).status).toBe(200);
    expect((await s.waitClose()).code).toBe(1008);
  });

  it('import', async () => {
    const dump = (await w.consoleReq('GET', '/workspaces/demo/export')).body;
    const s = await userListening();
    const imported = await w.consoleReq('POST', '/workspaces/demo/import', dump);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect((await s.waitClose()).code).toBe(1008);
  });

  it('reset', async () => {
    const s = await userListening();
    expect((await w.consoleReq('POST', '/workspaces/demo/reset')).status).toBe(200);
    expect((await s.waitClose()).code).toBe(1008);
  });
});

describe('sockets per principal', () => {
  let c: TestServer;
  beforeAll(async () => { c = await startTestServer({ realtimeMaxSockets: 3 }); });
  afterAll(async () => { await c.close(); });

  it('refuses a user\'s socket beyond the bound with 429 RATE_LIMITED, counting every session of his together', async () => {
    const u = await c.user('Many tabs');
    const second = await signIn(c, u.email, u.password);
    const held = [await open(u.token, c), await open(second.token, c), await open(u.token, c)];
    const refused = await TestSocket.open(realtimeUrl(c.api, second.token)).catch((e) => e);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: { code: 'RATE_LIMITED', message: expect.stringContaining('At most 3 realtime connections per user'), details: { limit: 3, retryAfter: 5 } } });
    expect(refused.headers['retry-after']).toBe('5');
    // Another user is not affected; a closed socket frees its place.
    const other = await c.user('Someone else');
    await open(other.token, c);
    held[0].close();
    await held[0].waitClose();
    await open(u.token, c);
  });

  it('counts anonymous sockets by client address', async () => {
    const anon = [await open(null, c), await open(null, c), await open(null, c)];
    expect(anon).toHaveLength(3);
    const refused = await TestSocket.open(realtimeUrl(c.api)).catch((e) => e);
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toContain('per client address');
  });

  it('refuses parallel upgrades beyond the bound too', async () => {
    const u = await c.user('Burst');
    const tries = await Promise.all(Array.from({ length: 8 }, () => TestSocket.open(realtimeUrl(c.api, u.token)).then((s) => { sockets.push(s); return 101; }, (e) => e.status)));
    expect(tries.filter((x) => x === 101)).toHaveLength(3);
    expect(tries.filter((x) => x === 429)).toHaveLength(5);
  });
});
