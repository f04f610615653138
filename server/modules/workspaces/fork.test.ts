// Forks over HTTP: a copy of a workspace (or of one of its snapshots) that is isolated both ways,
// where the users sign in and the files are, whose signing key is its own; bad input; the idle
// deadline (`ttl`) on a server in memory and across a restart on disk. Runs on both drivers.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, tempDataDir, TEST_ADMIN, type TestServer } from '../../test/harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  expect((await t.req('POST', '/database', { body: { _id: 'people', setting: { read: 'public', write: 'public', update: 'private' } } })).status).toBe(201);
  for (let i = 0; i < 3; i++) expect((await t.req('POST', '/database/people', { body: { _id: `p${i}`, name: `Person ${i}` } })).status).toBe(201);
});
afterAll(async () => { await t.close(); });

const api = (ws: string) => `${t.url}/app/${ws}`;
async function call(method: string, url: string, options: { token?: string; body?: unknown; raw?: BodyInit } = {}) {
  const res = await fetch(url, {
    method,
    headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: options.body !== undefined ? JSON.stringify(options.body) : options.raw,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
const login = (ws: string, email: string, password: string) => call('POST', `${api(ws)}/auth/login`, { body: { email, password } });
const ids = (body: { data: Array<{ _id: string }> }) => body.data.map((r) => r._id).sort();

describe('fork', () => {
  it('copies records, users and files; writes stay on their side; the source token is refused', async () => {
    const user = await t.user('Forked');
    const fd = new FormData();
    fd.append('file', new Blob(['bytes of the source']), 'note.txt');
    const up = await call('POST', `${t.api}/storage/upload`, { token: t.adminToken, raw: fd });
    expect(up.status).toBe(201);

    const res = await t.consoleReq('POST', '/workspaces/demo/fork', { _id: 'forked1' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ _id: 'forked1', source: 'demo', createdAt: expect.any(String) });
    expect((await t.consoleReq('GET', '/workspaces')).body.data.map((w: { _id: string }) => w._id)).toContain('forked1');

    // The source's tokens are not the fork's.
    expect((await call('GET', `${api('forked1')}/auth/me`, { token: t.adminToken })).status).toBe(401);
    expect((await call('GET', `${api('forked1')}/auth/me`, { token: user.token })).status).toBe(401);
    // Its users sign in with their passwords.
    const admin = await login('forked1', TEST_ADMIN.email, TEST_ADMIN.password);
    expect(admin.status).toBe(200);
    const token = admin.body.token as string;
    expect((await login('forked1', user.email, user.password)).status).toBe(200);

    expect(ids((await call('GET', `${api('forked1')}/database/people`)).body)).toEqual(['p0', 'p1', 'p2']);
    const file = await call('GET', `${api('forked1')}/storage/${up.body._id}`, { token });
    expect(file.status).toBe(200);
    const bytes = await fetch(`${api('forked1')}/storage/${up.body._id}/download`, { headers: { authorization: `Bearer ${token}` } });
    expect(bytes.status).toBe(200);
    expect(await bytes.text()).toBe('bytes of the source');

    // Isolation, both ways.
    expect((await call('POST', `${api('forked1')}/database/people`, { body: { _id: 'onlyFork', name: 'F' } })).status).toBe(201);
    expect((await call('DELETE', `${api('forked1')}/database/people/p0`, { token })).status).toBe(204);
    expect((await t.req('POST', '/database/people', { body: { _id: 'onlySource', name: 'S' } })).status).toBe(201);
    expect(ids((await call('GET', `${api('forked1')}/database/people`)).body)).toEqual(['onlyFork', 'p1', 'p2']);
    expect(ids((await t.req('GET', '/database/people')).body)).toEqual(['onlySource', 'p0', 'p1', 'p2']);
    expect((await call('DELETE', `${api('forked1')}/storage/${up.body._id}`, { token })).status).toBe(204);
    const still = await fetch(`${t.api}/storage/${up.body._id}/download`, { headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(await still.text()).toBe('bytes of the source');
    // The schema is the fork's own too.
    expect((await call('POST', `${api('forked1')}/database`, { token, body: { _id: 'forkOnly', setting: { read: 'public', write: 'public', update: 'private' } } })).status).toBe(201);
    expect((await t.req('GET', '/database/forkOnly')).status).toBe(404);

    await t.consoleReq('DELETE', '/workspaces/forked1');
    expect((await t.req('DELETE', '/database/people/onlySource')).status).toBe(204);
  });

  it('keeps unique indexes apart: the same value can go in the source and in the fork', async () => {
    const admin = TEST_ADMIN;
    const fork = await t.consoleReq('POST', '/workspaces/demo/fork', { _id: 'uniq' });
    expect(fork.status).toBe(201);
    const token = (await login('uniq', admin.email, admin.password)).body.token as string;
    // users carry a unique email index: a new email in each, then the same one in both.
    expect((await t.req('POST', '/users', { body: { email: 'both@example.com', password: 'password-123' } })).status).toBe(201);
    expect((await call('POST', `${api('uniq')}/users`, { token, body: { email: 'both@example.com', password: 'password-123' } })).status).toBe(201);
    expect((await call('POST', `${api('uniq')}/users`, { token, body: { email: 'both@example.com', password: 'password-123' } })).status).toBe(409);
    const ids = async (url: string, tk: string) => ((await call('GET', `${url}/users?filter[email]=both@example.com`, { token: tk })).body.data as Array<{ _id: string }>).map((u) => u._id);
    const inSource = await ids(t.api, t.adminToken);
    const inFork = await ids(api('uniq'), token);
    expect(inSource).toHaveLength(1);
    expect(inFork).toHaveLength(1);
    expect(inSource[0]).not.toBe(inFork[0]);
    for (const id of inSource) expect((await t.req('DELETE', `/users/${id}`)).status).toBe(204);
    expect((await t.consoleReq('DELETE', '/workspaces/uniq')).status).toBe(204);
  });

  it('copies neither sessions nor the outbox, and a fork of a fork works', async () => {
    expect((await call('POST', `${t.api}/auth/forgot-password`, { body: { email: TEST_ADMIN.email } })).status).toBeLessThan(300);
    expect((await t.consoleReq('GET', '/workspaces/demo/outbox')).body.meta.total).toBeGreaterThan(0);
    const a = await t.consoleReq('POST', '/workspaces/demo/fork', {});
    expect(a.status).toBe(201);
    expect(a.body._id).toMatch(/^demo-fork-[a-z0-9]{6}$/);
    expect((await t.consoleReq('GET', `/workspaces/${a.body._id}/outbox`)).body.meta.total).toBe(0);
    const b = await t.consoleReq('POST', `/workspaces/${a.body._id}/fork`, { _id: 'forkOfFork' });
    expect(b.status).toBe(201);
    expect(ids((await call('GET', `${api('forkOfFork')}/database/people`)).body)).toEqual(['p0', 'p1', 'p2']);
    const minted = await t.consoleReq('POST', '/workspaces/forkOfFork/token');
    expect(minted.status).toBe(200);
    expect((await call('GET', `${api('forkOfFork')}/auth/me`, { token: minted.body.token })).status).toBe(200);
    for (const id of [a.body._id, 'forkOfFork']) expect((await t.consoleReq('DELETE', `/workspaces/${id}`)).status).toBe(204);
  });

  it('forks a snapshot: its content, not the live one', async () => {
    expect((await t.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'three' })).status).toBe(201);
    expect((await t.req('POST', '/database/people', { body: { _id: 'after', name: 'A' } })).status).toBe(201);
    const res = await t.consoleReq('POST', '/workspaces/demo/fork', { _id: 'fromSnap', snapshot: 'three' });
    expect(res.status).toBe(201);
    expect(res.body.snapshot).toBe('three');
    expect(ids((await call('GET', `${api('fromSnap')}/database/people`)).body)).toEqual(['p0', 'p1', 'p2']);
    expect((await login('fromSnap', TEST_ADMIN.email, TEST_ADMIN.password)).status).toBe(200);
    // Unique indexes of the snapshot's stores hold in the fork (a second user by the same email).
    const token = (await login('fromSnap', TEST_ADMIN.email, TEST_ADMIN.password)).body.token;
    expect((await call('POST', `${api('fromSnap')}/users`, { token, body: { email: TEST_ADMIN.email, password: 'another-password-1' } })).status).toBe(409);
    expect((await t.consoleReq('DELETE', '/workspaces/fromSnap')).status).toBe(204);
    expect((await t.req('DELETE', '/database/people/after')).status).toBe(204);
  });

  it('refuses bad input: unknown workspace or snapshot 404, taken id 409, bad ttl or id 422', async () => {
    const before = (await t.consoleReq('GET', '/workspaces')).body.data;
    expect((await t.consoleReq('POST', '/workspaces/nope/fork', {})).status).toBe(404);
    const snap = await t.consoleReq('POST', '/workspaces/demo/fork', { snapshot: 'never-taken' });
    expect(snap.status).toBe(404);
    expect(snap.body.error.code).toBe('NOT_FOUND');
    const taken = await t.consoleReq('POST', '/workspaces/demo/fork', { _id: 'demo' });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('CONFLICT');
    for (const ttl of [0, -5, 'soon', 1e12]) {
      const bad = await t.consoleReq('POST', '/workspaces/demo/fork', { ttl });
      expect(bad.status).toBe(422);
      expect(JSON.stringify(bad.body.error.details)).toContain('ttl');
    }
    expect((await t.consoleReq('POST', '/workspaces/demo/fork', { _id: '1bad' })).status).toBe(422);
    expect((await fetch(`${t.url}/workspaces/demo/fork`, { method: 'POST' })).status).toBe(401);
    expect((await t.consoleReq('GET', '/workspaces')).body.data).toEqual(before);
  });

  it('deletes a fork left without requests for its ttl, and not one in use', async () => {
    const res = await t.consoleReq('POST', '/workspaces/demo/fork', { _id: 'shortLived', ttl: 0.3 });
    expect(res.status).toBe(201);
    expect(res.body.ttl).toBe(0.3);
    const kept = await t.consoleReq('POST', '/workspaces/demo/fork', { _id: 'kept' });
    expect(kept.status).toBe(201);
    // Watched through the list of workspaces: a request to the fork itself would keep it alive.
    await vi.waitFor(async () => {
      expect((await t.consoleReq('GET', '/workspaces')).body.data.map((w: { _id: string }) => w._id)).not.toContain('shortLived');
    }, { timeout: 10_000, interval: 100 });
    expect((await call('GET', `${api('shortLived')}/database/people`)).status).toBe(404);
    expect((await call('GET', `${api('kept')}/database/people`)).status).toBe(200);
    expect((await t.consoleReq('DELETE', '/workspaces/kept')).status).toBe(204);
  });

  it('keeps a fork with a ttl while requests keep coming', async () => {
    expect((await t.consoleReq('POST', '/workspaces/demo/fork', { _id: 'busy', ttl: 0.4 })).status).toBe(201);
    // Requests spaced by a quarter of the ttl, over five times the ttl: each one moves the deadline.
    for (let i = 0; i < 20; i++) {
      expect((await call('GET', `${api('busy')}/database/people`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await t.consoleReq('DELETE', '/workspaces/busy')).status).toBe(204);
  });
});

describe('fork ttl across a restart (on disk)', () => {
  it('keeps the deadline: a fork whose deadline passed while the server was down goes at the next start', async () => {
    const data = tempDataDir();
    try {
      let s = await startTestServer({ data: data.dir });
      expect((await s.consoleReq('POST', '/workspaces/demo/fork', { _id: 'persisted', ttl: 0.5 })).status).toBe(201);
      expect((await s.consoleReq('POST', '/workspaces/demo/fork', { _id: 'forever' })).status).toBe(201);
      await s.close();
      // Down for longer than the ttl: no timer ran, the deadline is in the folder.
      const deadline = Date.now() + 600;
      await vi.waitFor(() => { if (Date.now() < deadline) throw new Error('not yet'); }, { timeout: 5000, interval: 100 });
      s = await startTestServer({ data: data.dir });
      try {
        await vi.waitFor(async () => {
          expect((await s.consoleReq('GET', '/workspaces')).body.data.map((w: { _id: string }) => w._id)).toEqual(['demo', 'forever']);
        }, { timeout: 10_000, interval: 100 });
        const restored = await fetch(`${s.url}/app/forever/database/people`);
        expect(restored.status).toBe(404); // the fork is there; its collection was never made
        expect((await restored.json()).error.code).toBe('NOT_FOUND');
      } finally {
        await s.close();
      }
    } finally {
      data.remove();
    }
  });
});
