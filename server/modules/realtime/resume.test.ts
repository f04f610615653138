// Resuming after a reconnect: every event frame carries an id; a client that reconnects with the
// last id it saw (`?lastEventId=` or the subscribe frame's `lastEventId`) receives every event of
// the topic after it that it may see, then the live ones, with nothing lost in between.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestUser } from '../../test/harness.js';
import { TestSocket, realtimeUrl, type Frame } from './test-socket.js';

let t: TestServer;
let alice: TestUser, bob: TestUser;
const sockets: TestSocket[] = [];

beforeAll(async () => {
  t = await startTestServer();
  [alice, bob] = await Promise.all([t.user('Alice'), t.user('Bob')]);
  for (const [id, read] of [['feed', 'public'], ['mine', 'only-user'], ['other', 'public']]) {
    expect((await t.req('POST', '/database', { body: { _id: id, setting: { read, write: 'public', update: 'private' } } })).status).toBe(201);
  }
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await t.close();
});

async function open(url: string) {
  const s = await TestSocket.open(url);
  sockets.push(s);
  return s;
}

const created = (f: Frame) => f.type === 'event' && f.event === 'record.created';

async function create(collection: string, token: string | null, text: string) {
  const res = await t.req('POST', `/database/${collection}`, { token, body: { text } });
  expect(res.status).toBe(201);
  return res.body._id as string;
}

describe('resuming a subscription', () => {
  it('replays every event after the last one seen, in order, then goes on live (?lastEventId=)', async () => {
    const first = await open(realtimeUrl(t.api));
    expect(await first.subscribe('database:feed')).toEqual({ type: 'subscribed', topic: 'database:feed' });
    const r1 = await create('feed', null, 'one');
    const seen = await first.next(created);
    expect(seen).toMatchObject({ id: expect.stringMatching(/^evt_/), data: { _id: r1 } });
    first.close();
    await first.waitClose();

    // Written while the client was away (and one on another topic).
    const missed = [await create('feed', null, 'two'), await create('feed', null, 'three')];
    await create('other', null, 'elsewhere');

    const again = await open(`${realtimeUrl(t.api)}?lastEventId=${encodeURIComponent(seen.id)}`);
    expect(await again.subscribe('database:feed')).toEqual({ type: 'subscribed', topic: 'database:feed', resumed: true });
    const replayed = [await again.next(created), await again.next(created)];
    expect(replayed.map((f) => f.data._id)).toEqual(missed);
    expect(new Set(replayed.map((f) => f.id)).size).toBe(2);
    const live = await create('feed', null, 'four');
    expect((await again.next(created)).data._id).toBe(live);
    expect(again.frames.filter(created)).toEqual([]); // nothing else: not the other topic, not r1 again
  });

  it('takes lastEventId in the subscribe frame, and sends only what the subscriber may read', async () => {
    const a = await open(realtimeUrl(t.api, alice.token));
    const b = await open(realtimeUrl(t.api, bob.token));
    for (const s of [a, b]) expect(await s.subscribe('database:mine')).toMatchObject({ type: 'subscribed' });
    await create('mine', bob.token, 'bob first');
    const bobSeen = await b.next(created);
    b.close();
    await b.waitClose();
    const alices = await create('mine', alice.token, 'alice, private');
    const bobs = await create('mine', bob.token, 'bob, while away');
    await a.next((f) => created(f) && f.data._id === alices);

    const back = await open(realtimeUrl(t.api, bob.token));
    back.send({ type: 'subscribe', topic: 'database:mine', lastEventId: bobSeen.id, id: 7 });
    expect(await back.next((f) => f.type === 'subscribed')).toEqual({ type: 'subscribed', topic: 'database:mine', resumed: true, id: 7 });
    expect((await back.next(created)).data._id).toBe(bobs);
    const live = await create('mine', bob.token, 'bob, live');
    expect((await back.next(created)).data._id).toBe(live);
    expect(back.frames.filter(created)).toEqual([]); // Alice's record never reached Bob
  });

  it('says resumed: false for an id it does not keep (the client re-reads), and refuses a malformed one', async () => {
    const s = await open(realtimeUrl(t.api));
    s.send({ type: 'subscribe', topic: 'database:feed', lastEventId: 'evt_unknown' });
    expect(await s.next((f) => f.type === 'subscribed')).toEqual({ type: 'subscribed', topic: 'database:feed', resumed: false });
    s.send({ type: 'subscribe', topic: 'database:other', lastEventId: 5 });
    expect(await s.next((f) => f.type === 'error')).toMatchObject({ code: 'BAD_REQUEST', topic: 'database:other' });
    const live = await create('feed', null, 'after');
    expect((await s.next(created)).data._id).toBe(live);
  });

  it('forgets what it kept when the workspace content is replaced', async () => {
    const s = await open(realtimeUrl(t.api));
    expect(await s.subscribe('database:feed')).toMatchObject({ type: 'subscribed' });
    await create('feed', null, 'before the reset');
    const seen = await s.next(created);
    expect((await t.consoleReq('POST', '/workspaces/demo/reset')).status).toBe(200);
    const token = (await t.consoleReq('POST', '/workspaces/demo/token')).body.token as string;
    expect((await t.req('POST', '/database', { token, body: { _id: 'feed', setting: { read: 'public', write: 'public', update: 'private' } } })).status).toBe(201);
    const after = await open(`${realtimeUrl(t.api)}?lastEventId=${encodeURIComponent(seen.id)}`);
    after.send({ type: 'subscribe', topic: 'database:feed' });
    expect(await after.next((f) => f.type === 'subscribed' || f.type === 'error')).toMatchObject({ resumed: false });
  });
});
