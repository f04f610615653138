// Concurrent partial updates of one object (each one is applied whole, none is lost): they apply one after another, every
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
    expect((await t.req('POST', '/database', { body: { _id: 'race', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
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
    expect((await t.req('POST', '/database', { body: { _id: 'race2', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
    await fieldRace('/database/race2', (i) => ({ name: `n${i}` }), (i) => ({ setting: { read: i % 2 ? 'public' : 'private' } }),
      async () => (await t.req('GET', '/database?limit=100')).body.data.find((c: { _id: string }) => c._id === 'race2'));
  });
});

describe('parallel role changes', () => {
  it('two admins demoting each other at once leave one admin', async () => {
    const a = await t.user('AdminA', { role: 'admin' });
    const b = await t.user('AdminB', { role: 'admin' });
    // Demote every other admin (the harness's too) so that only a and b are left.
    const admins = (await t.req('GET', '/users?limit=100&filter[role]=admin')).body.data as Array<{ _id: string }>;
    for (const u of admins) if (u._id !== a._id && u._id !== b._id) expect((await t.req('PUT', `/users/${u._id}`, { token: a.token, body: { role: 'user' } })).status).toBe(200);
    const [ra, rb] = await Promise.all([
      t.req('PUT', `/users/${b._id}`, { token: a.token, body: { role: 'user' } }),
      t.req('PUT', `/users/${a._id}`, { token: b.token, body: { role: 'user' } }),
    ]);
    // One wins; the other is refused (409: the last admin; or 403 if it was already demoted).
    expect([ra.status, rb.status].filter((s) => s === 200)).toHaveLength(1);
    expect([ra.status, rb.status].filter((s) => s !== 200)[0]).toBeOneOf([403, 409]);
    const left = (await t.req('GET', '/users?limit=100&filter[role]=admin', { token: ra.status === 200 ? a.token : b.token })).body.data;
    expect(left).toHaveLength(1);
  });
});
