// Concurrent partial updates of one object (CONTRACT §10): they apply one after another, every
// answered change survives, and each answer shows the object right after its own change.
// Against a data folder, so that every write really waits on the disk between read and write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, tempDataDir, type TestServer } from '../test/harness.js';

let t: TestServer;
const data = tempDataDir('hb-races-');
beforeAll(async () => { t = await startTestServer({ data: data.dir }); });
afterAll(async () => { await t.close(); data.remove(); });

/** 50 parallel PUTs each adding its own key: all survive, and the answers show 1..50 keys. */
async function keyRace(path: string, method = 'PUT'): Promise<void> {
  const n = 50;
  const answers = await Promise.all(Array.from({ length: n }, (_, i) => t.req(method, path, { body: { [`k${i}`]: true } })));
  for (const [i, a] of answers.entries()) {
    expect(a.status, a.text).toBe(200);
    expect(a.body[`k${i}`]).toBe(true);
  }
  const seen = answers.map((a) => Object.keys(a.body).filter((k) => /^k\d+$/.test(k)).length).sort((a, b) => a - b);
  expect(seen).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  const final = await t.req('GET', path);
  for (let i = 0; i < n; i++) expect(final.body[`k${i}`], `k${i}`).toBe(true);
}

/** Rounds of two parallel PUTs changing different fields: both changes survive each round. */
async function fieldRace(path: string, a: (i: number) => Record<string, unknown>, b: (i: number) => Record<string, unknown>, read = async () => (await t.req('GET', path)).body): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const [ra, rb] = await Promise.all([t.req('PUT', path, { body: a(i) }), t.req('PUT', path, { body: b(i) })]);
    expect(ra.status, ra.text).toBe(200);
    expect(rb.status, rb.text).toBe(200);
    expect(ra.body).toMatchObject(a(i));
    expect(rb.body).toMatchObject(b(i));
    expect(await read()).toMatchObject({ ...a(i), ...b(i) });
  }
}

describe('parallel partial updates of one object', () => {
  it('records (PUT and PATCH)', async () => {
    expect((await t.req('POST', '/database', { body: { _id: 'race' } })).status).toBe(201);
    const rec = await t.req('POST', '/database/race', { body: { title: 'x' } });
    await keyRace(`/database/race/${rec.body._id}`);
    const other = await t.req('POST', '/database/race', { body: { title: 'y' } });
    await keyRace(`/database/race/${other.body._id}`, 'PATCH');
  });

  it('users (profile fields)', async () => {
    const u = await t.user('Racer');
    await keyRace(`/users/${u._id}`);
  });

  it('webhooks', async () => {
    const hook = await t.req('POST', '/webhooks', { body: { name: 'h', url: 'http://127.0.0.1:9/x', events: ['record.created'], active: false } });
    expect(hook.status, hook.text).toBe(201);
    await fieldRace(`/webhooks/${hook.body._id}`, (i) => ({ name: `name-${i}` }), (i) => ({ url: `http://127.0.0.1:9/u${i}` }));
  });

  it('scenarios', async () => {
    const sc = await t.req('POST', '/scenarios', { body: { name: 's', trigger: { type: 'manual' }, steps: [{ type: 'delay', ms: 1 }] } });
    expect(sc.status, sc.text).toBe(201);
    await fieldRace(`/scenarios/${sc.body._id}`, (i) => ({ name: `name-${i}` }), (i) => ({ description: `d-${i}` }));
  });

  it('secrets', async () => {
    const s = await t.req('POST', '/credentials', { body: { name: 'RACE', value: 'v' } });
    expect(s.status, s.text).toBe(201);
    await fieldRace(`/credentials/${s.body._id}`, (i) => ({ type: `t${i}` }), (i) => ({ description: `d-${i}` }));
  });

  it('channels, members and messages', async () => {
    const ch = await t.req('POST', '/chats/channels', { body: { name: 'c', type: 'group' } });
    expect(ch.status, ch.text).toBe(201);
    await fieldRace(`/chats/channels/${ch.body._id}`, (i) => ({ name: `name-${i}` }), (i) => ({ description: `d-${i}` }));
    const users = await Promise.all(Array.from({ length: 12 }, (_, i) => t.user(`M${i}`)));
    const added = await Promise.all(users.map((u) => t.req('POST', `/chats/${ch.body._id}/members`, { body: { userId: u._id } })));
    for (const a of added) expect(a.status, a.text).toBe(201);
    const members = await t.req('GET', `/chats/${ch.body._id}/members?limit=100`);
    expect(members.body.data.map((m: { userId: string }) => m.userId)).toEqual(expect.arrayContaining(users.map((u) => u._id)));
    const msg = await t.req('POST', `/chats/${ch.body._id}/messages`, { body: { text: 'hi' } });
    expect(msg.status, msg.text).toBe(201);
    const edits = await Promise.all(Array.from({ length: 10 }, (_, i) => t.req('PUT', `/chats/messages/${msg.body._id}`, { body: { text: `t${i}` } })));
    for (const [i, e] of edits.entries()) expect(e.body.text).toBe(`t${i}`);
  });

  it('collections (schema settings)', async () => {
    expect((await t.req('POST', '/database', { body: { _id: 'race2' } })).status).toBe(201);
    await fieldRace('/database/race2', (i) => ({ name: `n${i}` }), (i) => ({ setting: { read: i % 2 ? 'public' : 'private' } }),
      async () => (await t.req('GET', '/database?limit=100')).body.data.find((c: { _id: string }) => c._id === 'race2'));
  });
});
