// Realtime frames over a real `ws` client: chat delivery from both paths, access rules on
// subscribe, unsubscribe, membership changes, database topics filtered record by record, and
// error frames.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestUser } from '../../test/harness.js';
import { revokeUserSessions } from '../auth/sessions.js';
import { TestSocket, realtimeUrl } from './test-socket.js';

let t: TestServer;
let alice: TestUser, bob: TestUser, carol: TestUser;
const sockets: TestSocket[] = [];

beforeAll(async () => {
  t = await startTestServer();
  [alice, bob, carol] = await Promise.all([t.user('Alice'), t.user('Bob'), t.user('Carol')]);
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await t.close();
});

async function open(user: TestUser | null) {
  const s = await TestSocket.open(realtimeUrl(t.api, user?.token));
  sockets.push(s);
  return s;
}

async function channel(owner: TestUser, members: TestUser[] = []) {
  const res = await t.req('POST', '/chats/channels', { token: owner.token, body: { name: 'room', type: 'group', members: members.map((m) => m._id) } });
  expect(res.status).toBe(201);
  return res.body._id as string;
}

const isEvent = (event: string, pred: (data: any) => boolean = () => true) => (f: Record<string, any>) => f.type === 'event' && f.event === event && pred(f.data);

describe('chat topics', () => {
  it('two members receive each other\'s messages live, whether posted over REST or the socket', async () => {
    const id = await channel(alice, [bob]);
    const a = await open(alice);
    const b = await open(bob);
    expect(await a.subscribe(`chat:${id}`)).toEqual({ type: 'subscribed', topic: `chat:${id}` });
    expect(await b.subscribe(`chat:${id}`)).toEqual({ type: 'subscribed', topic: `chat:${id}` });

    a.send({ type: 'message', channelId: id, text: 'hello from the socket' });
    const atBob = await b.next(isEvent('message.created'));
    const atAlice = await a.next(isEvent('message.created'));
    expect(atBob).toEqual({
      type: 'event', id: expect.stringMatching(/^evt_/), topic: `chat:${id}`, event: 'message.created',
      data: { _id: expect.any(String), channelId: id, text: 'hello from the socket', type: 'text', author: { _id: alice._id, name: 'Alice' }, createdAt: expect.any(String), updatedAt: expect.any(String) },
    });
    expect(atAlice).toEqual(atBob);

    const posted = await t.req('POST', `/chats/${id}/messages`, { token: bob.token, body: { text: 'hello over REST' } });
    expect((await a.next(isEvent('message.created'))).data).toEqual(posted.body);
    expect((await b.next(isEvent('message.created'))).data).toEqual(posted.body);

    // both paths wrote the same kind of message
    const list = await t.req('GET', `/chats/${id}/messages`, { token: alice.token });
    expect(list.body.data.map((m: { text: string }) => m.text)).toEqual(['hello over REST', 'hello from the socket']);

    await t.req('PUT', `/chats/messages/${posted.body._id}`, { token: bob.token, body: { text: 'edited' } });
    expect((await a.next(isEvent('message.updated'))).data).toMatchObject({ _id: posted.body._id, text: 'edited' });
    await t.req('DELETE', `/chats/messages/${posted.body._id}`, { token: bob.token });
    expect((await a.next(isEvent('message.deleted'))).data).toMatchObject({ _id: posted.body._id });
  });

  it('refuses topics the caller may not follow, with error frames', async () => {
    const id = await channel(alice);
    const c = await open(carol);
    expect(await c.subscribe(`chat:${id}`)).toMatchObject({ type: 'error', code: 'FORBIDDEN', topic: `chat:${id}` });
    expect(await c.subscribe('chat:nope')).toMatchObject({ type: 'error', code: 'NOT_FOUND' });
    expect(await c.subscribe('database:nope')).toMatchObject({ type: 'error', code: 'NOT_FOUND' });
    expect(await c.subscribe('weather:today')).toMatchObject({ type: 'error', code: 'BAD_REQUEST' });
    c.send({ type: 'message', channelId: id, text: 'let me in' });
    expect(await c.next()).toMatchObject({ type: 'error', code: 'FORBIDDEN' });
    const anon = await open(null);
    expect(await anon.subscribe(`chat:${id}`)).toMatchObject({ type: 'error', code: 'UNAUTHORIZED' });
    anon.send({ type: 'message', channelId: id, text: 'hi' });
    expect(await anon.next()).toMatchObject({ type: 'error', code: 'UNAUTHORIZED' });
    // an admin may follow any channel
    const admin = await TestSocket.open(realtimeUrl(t.api, t.adminToken));
    sockets.push(admin);
    expect(await admin.subscribe(`chat:${id}`)).toMatchObject({ type: 'subscribed' });
  });

  it('answers bad frames with error frames and keeps the connection', async () => {
    const a = await open(alice);
    a.send('{not json');
    expect(await a.next()).toMatchObject({ type: 'error', code: 'BAD_REQUEST' });
    a.send('[1,2]');
    expect(await a.next()).toMatchObject({ type: 'error', code: 'BAD_REQUEST' });
    a.send({ type: 'dance' });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'BAD_REQUEST', message: expect.stringContaining('dance') });
    a.send({ topic: 'chat:x' });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'BAD_REQUEST' });
    const id = await channel(alice);
    a.send({ type: 'message', channelId: id, text: '', id: 7 });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'VALIDATION_ERROR', id: 7, details: { field: 'text' } });
    a.send({ type: 'message', text: 'where?' });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'VALIDATION_ERROR', details: { field: 'channelId', reason: 'required' } });
    expect(await a.subscribe(`chat:${id}`)).toMatchObject({ type: 'subscribed' });
    expect(a.closed).toBeUndefined();
  });

  it('stops delivery after unsubscribe', async () => {
    const quiet = await channel(alice);
    const loud = await channel(alice);
    const a = await open(alice);
    await a.subscribe(`chat:${quiet}`);
    await a.subscribe(`chat:${loud}`);
    expect(await a.request({ type: 'unsubscribe', topic: `chat:${quiet}` })).toEqual({ type: 'unsubscribed', topic: `chat:${quiet}` });
    await t.req('POST', `/chats/${quiet}/messages`, { token: alice.token, body: { text: 'unheard' } });
    await t.req('POST', `/chats/${loud}/messages`, { token: alice.token, body: { text: 'heard' } });
    // Events reach a socket in publish order: once 'heard' is in, 'unheard' would have been too.
    expect((await a.next(isEvent('message.created'))).data.text).toBe('heard');
    expect(a.frames.filter((f) => f.type === 'event')).toEqual([]);
  });

  it('ends the subscription of a removed member and of a deleted channel', async () => {
    const id = await channel(alice, [bob]);
    const b = await open(bob);
    await b.subscribe(`chat:${id}`);
    expect((await t.req('DELETE', `/chats/${id}/members/${bob._id}`, { token: alice.token })).status).toBe(204);
    expect(await b.next((f) => f.type === 'unsubscribed')).toMatchObject({ type: 'unsubscribed', topic: `chat:${id}`, reason: expect.any(String) });
    await t.req('POST', `/chats/${id}/messages`, { token: alice.token, body: { text: 'after you left' } });
    expect(await b.subscribe(`chat:${id}`)).toMatchObject({ type: 'error', code: 'FORBIDDEN' });
    expect(b.frames.filter((f) => f.type === 'event')).toEqual([]);

    const a = await open(alice);
    await a.subscribe(`chat:${id}`);
    await t.req('DELETE', `/chats/channels/${id}`, { token: alice.token });
    expect(await a.next(isEvent('channel.deleted'))).toMatchObject({ topic: `chat:${id}`, data: { _id: id } });
    expect(await a.next((f) => f.type === 'unsubscribed')).toMatchObject({ topic: `chat:${id}`, reason: 'channel deleted' });
  });

  it('a revoked session can no longer use its socket', async () => {
    const dave = await t.user('Dave');
    const id = await channel(dave);
    const d = await open(dave);
    expect(await d.subscribe(`chat:${id}`)).toMatchObject({ type: 'subscribed' });
    await revokeUserSessions(t.srv.ctx, t.srv.ctx.registry.require('demo'), dave._id);
    expect((await d.waitClose()).code).toBe(1008); // at once, without waiting for a frame or a ping
  });
});

describe('sessions and users', () => {
  it('logout ends the socket of that session', async () => {
    const reg = await t.req('POST', '/auth/register', { token: null, body: { email: 'leaver@example.test', password: 'password-123', name: 'Leaver' } });
    expect(reg.status).toBe(201);
    const s = await TestSocket.open(realtimeUrl(t.api, reg.body.token));
    sockets.push(s);
    const id = await channel({ _id: reg.body.user._id, name: 'Leaver', email: '', password: 'password-123', token: reg.body.token });
    expect(await s.subscribe(`chat:${id}`)).toMatchObject({ type: 'subscribed' });
    expect((await t.req('POST', '/auth/logout', { token: reg.body.token })).status).toBe(204);
    expect((await s.waitClose()).code).toBe(1008);
  });

  it('an impersonation socket ends when the admin behind it is demoted, as its REST token does', async () => {
    const second = await t.user('Second admin', { role: 'admin' });
    const target = await t.user('Target');
    const imp = await t.req('POST', `/auth/impersonate/${target._id}`, { token: second.token });
    expect(imp.status).toBe(200);
    const id = await channel(target);
    const s = await TestSocket.open(realtimeUrl(t.api, imp.body.token));
    sockets.push(s);
    expect(await s.subscribe(`chat:${id}`)).toMatchObject({ type: 'subscribed' });
    expect((await t.req('PUT', `/users/${second._id}`, { body: { role: 'user' } })).status).toBe(200);
    expect((await t.req('GET', '/auth/me', { token: imp.body.token })).status).toBe(401);
    expect((await s.waitClose()).code).toBe(1008);
  });

  it('closes the sockets of a deleted user and applies role changes', async () => {
    const gone = await t.user('Gone');
    const g = await open(gone);
    expect((await t.req('DELETE', `/users/${gone._id}`)).status).toBe(204);
    expect((await g.waitClose()).code).toBe(1008);

    const id = await channel(alice);
    const promoted = await t.user('Promoted');
    const p = await open(promoted);
    expect(await p.subscribe(`chat:${id}`)).toMatchObject({ type: 'error', code: 'FORBIDDEN' });
    expect((await t.req('PUT', `/users/${promoted._id}`, { body: { role: 'admin' } })).status).toBe(200);
    expect(await p.subscribe(`chat:${id}`)).toMatchObject({ type: 'subscribed' });
    expect((await t.req('PUT', `/users/${promoted._id}`, { body: { role: 'user' } })).status).toBe(200);
    expect(await p.next((f) => f.type === 'unsubscribed')).toMatchObject({ topic: `chat:${id}`, reason: expect.any(String) });
  });
});

describe('database topics', () => {
  it('delivers record events only for records the subscriber may read', async () => {
    const created = await t.req('POST', '/database', { body: { _id: 'notes', name: 'Notes', setting: { read: 'only-user', write: 'private', update: 'only-user' } } });
    expect(created.status).toBe(201);
    const a = await open(alice);
    const b = await open(bob);
    const admin = await TestSocket.open(realtimeUrl(t.api, t.adminToken));
    sockets.push(admin);
    for (const s of [a, b, admin]) expect(await s.subscribe('database:notes')).toEqual({ type: 'subscribed', topic: 'database:notes' });
    const anon = await open(null);
    expect(await anon.subscribe('database:notes')).toMatchObject({ type: 'error', code: 'UNAUTHORIZED' });

    const byAlice = await t.req('POST', '/database/notes', { token: alice.token, body: { text: 'alice 1' } });
    const byBob = await t.req('POST', '/database/notes', { token: bob.token, body: { text: 'bob 1' } });
    expect(byAlice.status).toBe(201);
    expect(byBob.status).toBe(201);
    expect(await a.next(isEvent('record.created'))).toEqual({ type: 'event', id: expect.stringMatching(/^evt_/), topic: 'database:notes', event: 'record.created', data: byAlice.body });
    expect((await b.next(isEvent('record.created'))).data).toEqual(byBob.body);
    expect((await admin.next(isEvent('record.created'))).data._id).toBe(byAlice.body._id);
    expect((await admin.next(isEvent('record.created'))).data._id).toBe(byBob.body._id);

    // A later event of Alice's proves Bob's record never reached her socket, and vice versa.
    await t.req('PUT', `/database/notes/${byAlice.body._id}`, { token: alice.token, body: { text: 'alice 2' } });
    await t.req('PUT', `/database/notes/${byBob.body._id}`, { token: bob.token, body: { text: 'bob 2' } });
    expect((await a.next(isEvent('record.updated'))).data).toMatchObject({ _id: byAlice.body._id, text: 'alice 2' });
    expect((await b.next(isEvent('record.updated'))).data).toMatchObject({ _id: byBob.body._id, text: 'bob 2' });
    expect(a.frames.filter((f) => f.type === 'event')).toEqual([]);
    expect(b.frames.filter((f) => f.type === 'event')).toEqual([]);
  });

  it('lets anonymous sockets follow collections with public reads', async () => {
    expect((await t.req('POST', '/database', { body: { _id: 'news', name: 'News', setting: { read: 'public', write: 'private', update: 'only-user' } } })).status).toBe(201);
    const anon = await open(null);
    expect(await anon.subscribe('database:news')).toMatchObject({ type: 'subscribed' });
    const rec = await t.req('POST', '/database/news', { token: alice.token, body: { title: 'hello' } });
    expect((await anon.next(isEvent('record.created'))).data).toEqual(rec.body);
    await t.req('DELETE', `/database/news/${rec.body._id}`, { token: alice.token });
    expect((await anon.next(isEvent('record.deleted'))).data).toMatchObject({ _id: rec.body._id });
  });
});
