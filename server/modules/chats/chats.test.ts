// The chats REST API: channels, members, messages, their access rules and events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestUser } from '../../test/harness.js';
import type { BusEvent } from '../../core/bus.js';

let t: TestServer;
let alice: TestUser, bob: TestUser, carol: TestUser;
const events: BusEvent[] = [];

beforeAll(async () => {
  t = await startTestServer();
  t.srv.ctx.bus.subscribe((e) => { events.push(e); });
  [alice, bob, carol] = await Promise.all([t.user('Alice'), t.user('Bob'), t.user('Carol')]);
});
afterAll(async () => { await t.close(); });

const as = (u: TestUser | null) => ({ token: u ? u.token : null });

async function group(owner: TestUser, members: string[] = [], name = 'general') {
  const res = await t.req('POST', '/chats/channels', { ...as(owner), body: { name, type: 'group', members } });
  expect(res.status).toBe(201);
  return res.body;
}

describe('channels', () => {
  it('creates a channel with the creator as owner and member, and publishes channel.created', async () => {
    const res = await t.req('POST', '/chats/channels', { ...as(alice), body: { name: 'general', type: 'group', members: [bob._id, bob._id] } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      _id: expect.stringMatching(/^[A-Za-z0-9]{16}$/), name: 'general', type: 'group', members: [alice._id, bob._id],
      _owner: alice._id, createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    const event = events.find((e) => e.type === 'channel.created' && e.data._id === res.body._id);
    expect(event).toMatchObject({ app: 'demo', data: res.body, actor: { _id: alice._id, role: 'user' } });
  });

  it('defaults the type to group and validates the body', async () => {
    expect((await t.req('POST', '/chats/channels', { ...as(alice), body: { name: 'x' } })).body.type).toBe('group');
    const unknown = await t.req('POST', '/chats/channels', { ...as(alice), body: { name: 'x', members: ['nobody1234567890'] } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details).toMatchObject({ field: 'members', reason: 'invalid' });
    const badType = await t.req('POST', '/chats/channels', { ...as(alice), body: { name: 'x', type: 'broadcast' } });
    expect(badType.body.error.details).toMatchObject({ field: 'type', reason: 'enum' });
    expect((await t.req('POST', '/chats/channels', { ...as(alice), body: { type: 'group' } })).body.error.details).toMatchObject({ field: 'name', reason: 'required' });
    expect((await t.req('POST', '/chats/channels', { ...as(alice), body: { name: 'x', _owner: bob._id } })).body.error.details).toMatchObject({ field: '_owner', reason: 'read_only' });
    expect((await t.req('POST', '/chats/channels', { ...as(null), body: { name: 'x' } })).status).toBe(401);
  });

  it('direct channels have exactly two members, once per pair', async () => {
    const one = await t.req('POST', '/chats/channels', { ...as(alice), body: { type: 'direct', members: [carol._id] } });
    expect(one.status).toBe(201);
    expect(one.body).toMatchObject({ type: 'direct', name: '', members: [alice._id, carol._id] });
    const again = await t.req('POST', '/chats/channels', { ...as(carol), body: { type: 'direct', members: [alice._id] } });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toEqual({ channelId: one.body._id });
    const three = await t.req('POST', '/chats/channels', { ...as(alice), body: { type: 'direct', members: [bob._id, carol._id] } });
    expect(three.status).toBe(422);
    expect((await t.req('POST', `/chats/${one.body._id}/members`, { ...as(alice), body: { userId: bob._id } })).status).toBe(422);
  });

  it('lists the caller\'s channels, every channel for an admin, with the list parameters', async () => {
    const mine = await group(bob, [], 'bob-only');
    const list = await t.req('GET', '/chats/channels?limit=100', as(bob));
    expect(list.status).toBe(200);
    expect(list.body.data.every((c: { members: string[] }) => c.members.includes(bob._id))).toBe(true);
    expect(list.body.data.map((c: { _id: string }) => c._id)).toContain(mine._id);
    expect((await t.req('GET', '/chats/channels?limit=100', as(carol))).body.data.map((c: { _id: string }) => c._id)).not.toContain(mine._id);
    const admin = await t.req('GET', `/chats/channels?filter[name]=bob-only&fields=name`);
    expect(admin.body).toEqual({ data: [{ _id: mine._id, name: 'bob-only' }], meta: { total: 1, limit: 50, offset: 0 } });
    expect((await t.req('GET', '/chats/channels?limit=0', as(bob))).body.data).toEqual([]);
    expect((await t.req('GET', '/chats/channels?limit=x', as(bob))).status).toBe(400);
    expect((await t.req('GET', '/chats/channels', as(null))).status).toBe(401);
  });

  it('reads one channel: members and admins only', async () => {
    const c = await group(alice, [bob._id]);
    expect((await t.req('GET', `/chats/channels/${c._id}`, as(bob))).body).toEqual(c);
    expect((await t.req('GET', `/chats/channels/${c._id}`, as(carol))).status).toBe(403);
    expect((await t.req('GET', `/chats/channels/${c._id}`)).status).toBe(200);
    expect((await t.req('GET', '/chats/channels/nope', as(bob))).status).toBe(404);
  });

  it('updates partially (owner or admin) with PUT and PATCH', async () => {
    const c = await group(alice, [bob._id], 'before');
    const put = await t.req('PUT', `/chats/channels/${c._id}`, { ...as(alice), body: { name: 'after' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ _id: c._id, name: 'after', type: 'group', members: [alice._id, bob._id] });
    expect(events.some((e) => e.type === 'channel.updated' && e.data._id === c._id && e.data.name === 'after')).toBe(true);
    expect((await t.req('PATCH', `/chats/channels/${c._id}`, { body: { description: 'by admin' } })).body).toMatchObject({ name: 'after', description: 'by admin' });
    expect((await t.req('PUT', `/chats/channels/${c._id}`, { ...as(bob), body: { name: 'nope' } })).status).toBe(403);
    expect((await t.req('PUT', `/chats/channels/${c._id}`, { ...as(carol), body: { name: 'nope' } })).status).toBe(403);
    expect((await t.req('PUT', `/chats/channels/${c._id}`, { ...as(alice), body: { type: 'direct' } })).body.error.details).toMatchObject({ field: 'type', reason: 'read_only' });
    expect((await t.req('PUT', '/chats/channels/nope', { ...as(alice), body: { name: 'x' } })).status).toBe(404);
    const members = await t.req('PUT', `/chats/channels/${c._id}`, { ...as(alice), body: { members: [carol._id] } });
    expect(members.body.members).toEqual([alice._id, carol._id]);
    expect((await t.req('PUT', `/chats/channels/${c._id}`, { ...as(alice), body: { members: ['ghost'] } })).status).toBe(422);
  });

  it('deletes a channel with its messages (owner or admin)', async () => {
    const c = await group(alice, [bob._id]);
    const m = await t.req('POST', `/chats/${c._id}/messages`, { ...as(bob), body: { text: 'hi' } });
    expect((await t.req('DELETE', `/chats/channels/${c._id}`, as(bob))).status).toBe(403);
    expect((await t.req('DELETE', `/chats/channels/${c._id}`, as(alice))).status).toBe(204);
    expect(events.some((e) => e.type === 'channel.deleted' && e.data._id === c._id)).toBe(true);
    expect((await t.req('GET', `/chats/messages/${m.body._id}`)).status).toBe(404);
    expect((await t.req('DELETE', `/chats/channels/${c._id}`, as(alice))).status).toBe(404);
    const other = await group(bob);
    expect((await t.req('DELETE', `/chats/channels/${other._id}`)).status).toBe(204);
  });
});

describe('members', () => {
  it('lists, adds and removes members with the right rules', async () => {
    const c = await group(alice);
    const added = await t.req('POST', `/chats/${c._id}/members`, { ...as(alice), body: { userId: bob._id } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ userId: bob._id, name: 'Bob', role: 'member', joinedAt: expect.any(String) });
    expect((await t.req('POST', `/chats/${c._id}/members`, { ...as(alice), body: { userId: bob._id } })).status).toBe(409);
    expect((await t.req('POST', `/chats/${c._id}/members`, { ...as(alice), body: { userId: 'nobody1234567890' } })).status).toBe(404);
    expect((await t.req('POST', `/chats/${c._id}/members`, { ...as(alice), body: {} })).body.error.details).toMatchObject({ field: 'userId', reason: 'required' });
    expect((await t.req('POST', `/chats/${c._id}/members`, { ...as(bob), body: { userId: carol._id } })).status).toBe(403);
    expect((await t.req('POST', `/chats/${c._id}/members`, { ...as(carol), body: { userId: carol._id } })).status).toBe(403);
    expect((await t.req('POST', '/chats/nope/members', { ...as(alice), body: { userId: carol._id } })).status).toBe(404);
    expect((await t.req('POST', `/chats/${c._id}/members`, { body: { userId: carol._id } })).status).toBe(201);

    const list = await t.req('GET', `/chats/${c._id}/members`, as(bob));
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ total: 3, limit: 50, offset: 0 });
    expect(list.body.data.map((m: { name: string; role: string }) => [m.name, m.role])).toEqual([['Alice', 'owner'], ['Bob', 'member'], ['Carol', 'member']]);
    expect((await t.req('GET', `/chats/${c._id}/members?filter[role]=owner`, as(bob))).body.data).toHaveLength(1);
    expect((await t.req('GET', `/chats/${c._id}/members?limit=1&offset=1`, as(bob))).body.data[0].name).toBe('Bob');

    // a member removes only himself; the owner or an admin removes anyone
    expect((await t.req('DELETE', `/chats/${c._id}/members/${carol._id}`, as(bob))).status).toBe(403);
    expect((await t.req('DELETE', `/chats/${c._id}/members/${carol._id}`, as(carol))).status).toBe(204);
    expect((await t.req('GET', `/chats/${c._id}/members`, as(carol))).status).toBe(403);
    expect((await t.req('DELETE', `/chats/${c._id}/members/${carol._id}`, as(alice))).status).toBe(404);
    expect((await t.req('DELETE', `/chats/${c._id}/members/${bob._id}`, as(alice))).status).toBe(204);
    expect((await t.req('GET', `/chats/${c._id}/members`, as(null))).status).toBe(401);
  });

  it('passes ownership on when the owner leaves', async () => {
    const c = await group(alice, [bob._id, carol._id]);
    expect((await t.req('DELETE', `/chats/${c._id}/members/${alice._id}`, as(alice))).status).toBe(204);
    const after = await t.req('GET', `/chats/channels/${c._id}`, as(bob));
    expect(after.body).toMatchObject({ _owner: bob._id, members: [bob._id, carol._id] });
    expect((await t.req('PUT', `/chats/channels/${c._id}`, { ...as(bob), body: { name: 'mine now' } })).status).toBe(200);
  });

  it('leaving as the last member ends every right of the former owner', async () => {
    const c = await group(alice);
    expect((await t.req('DELETE', `/chats/${c._id}/members/${alice._id}`, as(alice))).status).toBe(204);
    // An admin brings Bob and Carol in; the channel goes on without Alice.
    expect((await t.req('POST', `/chats/${c._id}/members`, { body: { userId: bob._id } })).status).toBe(201);
    expect((await t.req('POST', `/chats/${c._id}/members`, { body: { userId: carol._id } })).status).toBe(201);
    const secret = await t.req('POST', `/chats/${c._id}/messages`, { ...as(bob), body: { text: 'after Alice left' } });
    expect(secret.status).toBe(201);
    // Alice cannot re-add herself (as owner or at all), read, post, change, or remove anyone.
    expect((await t.req('POST', `/chats/${c._id}/members`, { ...as(alice), body: { userId: alice._id } })).status).toBe(403);
    expect((await t.req('GET', `/chats/${c._id}/messages`, as(alice))).status).toBe(403);
    expect((await t.req('GET', `/chats/messages/${secret.body._id}`, as(alice))).status).toBe(403);
    expect((await t.req('POST', `/chats/${c._id}/messages`, { ...as(alice), body: { text: 'hi' } })).status).toBe(403);
    expect((await t.req('PATCH', `/chats/channels/${c._id}`, { ...as(alice), body: { members: [alice._id] } })).status).toBe(403);
    expect((await t.req('DELETE', `/chats/${c._id}/members/${bob._id}`, as(alice))).status).toBe(403);
    expect((await t.req('DELETE', `/chats/channels/${c._id}`, as(alice))).status).toBe(403);
    // The first member added after the channel was left empty owns it now.
    const channel = (await t.req('GET', `/chats/channels/${c._id}`, as(bob))).body;
    expect(channel).toMatchObject({ _owner: bob._id, members: [bob._id, carol._id] });
    const owners = (await t.req('GET', `/chats/${c._id}/members?filter[role]=owner`, as(bob))).body.data;
    expect(owners.map((m: { userId: string }) => m.userId)).toEqual([bob._id]);
    expect((await t.req('GET', `/chats/${c._id}/members`, as(bob))).body.data.map((m: { userId: string }) => m.userId)).toEqual([bob._id, carol._id]);
  });

  it('an empty channel keeps no owner rights while nobody is in it', async () => {
    const c = await group(carol);
    expect((await t.req('DELETE', `/chats/${c._id}/members/${carol._id}`, as(carol))).status).toBe(204);
    expect((await t.req('POST', `/chats/${c._id}/members`, { ...as(carol), body: { userId: carol._id } })).status).toBe(403);
    expect((await t.req('PUT', `/chats/channels/${c._id}`, { ...as(carol), body: { name: 'mine again' } })).status).toBe(403);
    // An admin may give it members again (PUT), and the longest-standing one is the owner.
    const put = await t.req('PUT', `/chats/channels/${c._id}`, { body: { members: [bob._id, alice._id] } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ _owner: bob._id, members: [bob._id, alice._id] });
  });
});

describe('messages', () => {
  it('posts, lists newest first, edits and deletes messages', async () => {
    const c = await group(alice, [bob._id]);
    const first = await t.req('POST', `/chats/${c._id}/messages`, { ...as(alice), body: { text: 'one' } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      _id: expect.any(String), channelId: c._id, text: 'one', type: 'text', author: { _id: alice._id, name: 'Alice' },
      createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    expect(events.find((e) => e.type === 'message.created' && e.data._id === first.body._id)?.data).toEqual(first.body);
    await t.req('POST', `/chats/${c._id}/messages`, { ...as(bob), body: { text: 'two', type: 'note' } });
    await t.req('POST', `/chats/${c._id}/messages`, { ...as(alice), body: { text: 'three' } });

    const list = await t.req('GET', `/chats/${c._id}/messages`, as(bob));
    expect(list.body.data.map((m: { text: string }) => m.text)).toEqual(['three', 'two', 'one']);
    expect(list.body.meta).toEqual({ total: 3, limit: 50, offset: 0 });
    expect((await t.req('GET', `/chats/${c._id}/messages?sort=createdAt`, as(bob))).body.data.map((m: { text: string }) => m.text)).toEqual(['one', 'two', 'three']);
    expect((await t.req('GET', `/chats/${c._id}/messages?filter[type]=note`, as(bob))).body.data.map((m: { text: string }) => m.text)).toEqual(['two']);
    expect((await t.req('GET', `/chats/${c._id}/messages?limit=1&offset=1&fields=text`, as(bob))).body.data).toEqual([{ _id: expect.any(String), text: 'two' }]);
    expect((await t.req('GET', `/chats/${c._id}/messages?filter[text][$bogus]=1`, as(bob))).status).toBe(400);

    const edited = await t.req('PUT', `/chats/messages/${first.body._id}`, { ...as(alice), body: { text: 'one!' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ _id: first.body._id, text: 'one!', type: 'text', channelId: c._id });
    expect(events.some((e) => e.type === 'message.updated' && e.data.text === 'one!')).toBe(true);
    expect((await t.req('PATCH', `/chats/messages/${first.body._id}`, { ...as(alice), body: { type: 'note' } })).body).toMatchObject({ text: 'one!', type: 'note' });
    expect((await t.req('PUT', `/chats/messages/${first.body._id}`, { ...as(bob), body: { text: 'hijack' } })).status).toBe(403);
    expect((await t.req('PUT', `/chats/messages/${first.body._id}`, { body: { text: 'admin edit' } })).status).toBe(403);
    expect((await t.req('PUT', `/chats/messages/${first.body._id}`, { ...as(alice), body: { channelId: 'x' } })).body.error.details).toMatchObject({ field: 'channelId', reason: 'read_only' });
    expect((await t.req('PUT', '/chats/messages/nope', { ...as(alice), body: { text: 'x' } })).status).toBe(404);

    expect((await t.req('DELETE', `/chats/messages/${first.body._id}`, as(bob))).status).toBe(403);
    expect((await t.req('DELETE', `/chats/messages/${first.body._id}`, as(alice))).status).toBe(204);
    expect(events.some((e) => e.type === 'message.deleted' && e.data._id === first.body._id)).toBe(true);
    expect((await t.req('DELETE', `/chats/messages/${first.body._id}`, as(alice))).status).toBe(404);
    const bobs = (await t.req('GET', `/chats/${c._id}/messages`, as(bob))).body.data.find((m: { text: string }) => m.text === 'two');
    expect((await t.req('DELETE', `/chats/messages/${bobs._id}`)).status).toBe(204);
  });

  it('only members and admins read or post', async () => {
    const c = await group(alice, [bob._id]);
    expect((await t.req('POST', `/chats/${c._id}/messages`, { ...as(carol), body: { text: 'let me in' } })).status).toBe(403);
    expect((await t.req('GET', `/chats/${c._id}/messages`, as(carol))).status).toBe(403);
    expect((await t.req('POST', `/chats/${c._id}/messages`, { body: { text: 'admin here' } })).status).toBe(201);
    expect((await t.req('GET', `/chats/${c._id}/messages`)).status).toBe(200);
    expect((await t.req('POST', `/chats/${c._id}/messages`, { ...as(null), body: { text: 'anon' } })).status).toBe(401);
    expect((await t.req('GET', `/chats/${c._id}/messages`, as(null))).status).toBe(401);
    expect((await t.req('POST', '/chats/nope/messages', { ...as(alice), body: { text: 'x' } })).status).toBe(404);
    expect((await t.req('GET', '/chats/nope/messages', as(alice))).status).toBe(404);
  });

  it('validates message bodies', async () => {
    const c = await group(alice);
    const post = (body: unknown) => t.req('POST', `/chats/${c._id}/messages`, { ...as(alice), body });
    expect((await post({})).body.error.details).toMatchObject({ field: 'text', reason: 'required' });
    expect((await post({ text: 5 })).body.error.details).toMatchObject({ field: 'text', reason: 'type' });
    expect((await post({ text: '   ' })).status).toBe(422);
    expect((await post({ text: 'x'.repeat(10_001) })).body.error.details).toMatchObject({ field: 'text', reason: 'too_long' });
    expect((await post({ text: 'x', extra: 1 })).status).toBe(422);
    const raw = await fetch(`${t.api}/chats/${c._id}/messages`, { method: 'POST', headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' }, body: '{bad' });
    expect(raw.status).toBe(400);
  });

  it('an author who left may still delete but no longer edit his messages', async () => {
    const c = await group(alice, [bob._id]);
    const m = await t.req('POST', `/chats/${c._id}/messages`, { ...as(bob), body: { text: 'bye' } });
    await t.req('DELETE', `/chats/${c._id}/members/${bob._id}`, as(bob));
    expect((await t.req('PUT', `/chats/messages/${m.body._id}`, { ...as(bob), body: { text: 'edit' } })).status).toBe(403);
    expect((await t.req('DELETE', `/chats/messages/${m.body._id}`, as(bob))).status).toBe(204);
  });
});
