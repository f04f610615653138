// `homebase/testing` used as a suite would: Vitest's test.extend with the fixtures (a server per
// worker, a fork per test, deleted after it), and the hooks form. The forks are checked over
// HTTP: each test sees the seed, never another test's writes, and its fork is gone afterwards.
import { beforeAll, beforeEach, afterEach, describe, expect, test as base, it } from 'vitest';
import { homebaseFixtures, useHomebase, workerServer, TEST_ADMIN, type HomebaseFixtures } from './index.js';

const seed = {
  format: 'homebase-dump', version: 1,
  schema: { collections: [{ _id: 'todos', setting: { read: 'public', write: 'public', update: 'private' } }] },
  records: { todos: [{ _id: 'first', title: 'Seeded' }] },
} as const;

const test = base.extend<HomebaseFixtures>(homebaseFixtures({ server: { seed: seed as unknown as Record<string, unknown> } }));

const seen: string[] = [];

describe('fixtures (test.extend)', () => {
  test('a fork holds the seed; writes stay in it', async ({ fork }) => {
    seen.push(fork.id);
    expect((await fork.request('GET', '/database/todos')).body.data.map((r: { _id: string }) => r._id)).toEqual(['first']);
    expect((await fork.request('POST', '/database/todos', { body: { _id: 'mine', title: 'Only here' } })).status).toBe(201);
    expect((await fork.request('GET', '/database/todos')).body.meta.total).toBe(2);
  });

  test('the next test gets a fresh fork; the last one was deleted', async ({ fork, homebase }) => {
    seen.push(fork.id);
    expect(seen[0]).not.toBe(seen[1]);
    expect((await fork.request('GET', '/database/todos')).body.meta.total).toBe(1);
    const list = await fetch(`${homebase.url}/workspaces`, { headers: { authorization: `Bearer ${homebase.consoleToken}` } });
    const ids = ((await list.json()) as { data: Array<{ _id: string }> }).data.map((w) => w._id);
    expect(ids).toContain(fork.id);
    expect(ids).not.toContain(seen[0]);
    // The worker's server is one for every test of this worker.
    expect(await workerServer()).toBe(homebase);
  });

  test('users sign in to the fork; the outbox waits for an email', async ({ fork }) => {
    const login = await fork.request('POST', '/auth/login', { token: null, body: TEST_ADMIN });
    expect(login.status).toBe(200);
    const waiting = fork.outbox(TEST_ADMIN.email, 10_000);
    expect((await fork.request('POST', '/auth/forgot-password', { token: null, body: { email: TEST_ADMIN.email } })).status).toBe(202);
    const [email] = await waiting;
    expect(email.codes[0]).toMatch(/^hbp_/);
  });
});

describe('hooks (useHomebase)', () => {
  const hb = useHomebase({ beforeAll, beforeEach, afterEach });
  const ids: string[] = [];

  it('gives each test its own fork', async () => {
    ids.push(hb.fork.id);
    expect((await hb.fork.request('DELETE', '/database/todos/first')).status).toBe(204);
  });

  it('and deletes it after the test', async () => {
    ids.push(hb.fork.id);
    expect((await hb.fork.request('GET', '/database/todos/first')).status).toBe(200);
    const gone = await fetch(`${hb.server.url}/app/${ids[0]}/database/todos`);
    expect(gone.status).toBe(404);
  });
});
