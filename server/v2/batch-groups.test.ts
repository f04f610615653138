// Atomic batches beyond records, on both drivers: webhooks, secrets, channels, messages and
// members are undone with the rest when an operation fails (lists and reads as before, no
// event), applied when none does; a write the batch cannot undo is a 400 naming it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/harness.js';
import type { BusEvent } from '../core/bus.js';
import { makeCollection, v2Client } from './v2-client.js';

let t: TestServer;
let v2: ReturnType<typeof v2Client>;
const events: BusEvent[] = [];
let hook: string;
let secret: string;
let channel: string;
let message: string;
let memberId: string;

beforeAll(async () => {
  t = await startTestServer();
  v2 = v2Client(t);
  t.srv.ctx.bus.subscribe((e) => { events.push(e); });
  await makeCollection(t, 'jobs');
  hook = (await v2('POST', '/webhooks', { body: { name: 'hook', url: 'http://localhost:9/x', events: ['record.*'], active: false } })).body.data._id;
  secret = (await v2('POST', '/credentials', { body: { name: 'FIRST_KEY', description: 'first', value: 'first-value-1' } })).body.data._id;
  memberId = (await t.user('Member'))._id;
  const made = await v2('POST', '/chats/channels', { body: { name: 'room', type: 'group', members: [] } });
  expect(made.status).toBe(201);
  channel = made.body.data._id;
  const said = await v2('POST', `/chats/${channel}/messages`, { body: { text: 'hello' } });
  expect(said.status).toBe(201);
  message = said.body.data._id;
});
afterAll(async () => { await t?.close(); });

async function batch(body: unknown) {
  const res = await fetch(`${t.url}/v2/batch`, {
    method: 'POST', body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.adminToken}` },
  });
  return { status: res.status, body: await res.json() };
}

const op = (method: string, path: string, body?: unknown) => ({ method, path: `/app/demo${path}`, ...(body ? { body } : {}) });

async function state() {
  const [hooks, secrets, channels, messages, members] = await Promise.all([
    v2('GET', '/webhooks?limit=100'), v2('GET', '/credentials?limit=100'), v2('GET', `/chats/channels/${channel}`),
    v2('GET', `/chats/${channel}/messages?limit=100`), v2('GET', `/chats/${channel}/members`),
  ]);
  return { hooks: hooks.body.data, secrets: secrets.body.data, channel: channels.body.data, messages: messages.body.data, members: members.body.data };
}

const writes = () => [
  op('POST', '/webhooks', { name: 'new hook', url: 'http://localhost:9/y', events: ['record.*'], active: false }),
  op('PATCH', `/webhooks/${hook}`, { name: 'renamed hook' }),
  op('POST', '/credentials', { name: 'SECOND_KEY', value: 'second-value-1' }),
  op('PUT', `/credentials/${secret}`, { name: 'FIRST_KEY', description: 'changed' }), // v2's PUT: the whole secret
  op('POST', `/chats/${channel}/messages`, { text: 'from the batch' }),
  op('PATCH', `/chats/messages/${message}`, { text: 'edited' }),
  op('PATCH', `/chats/channels/${channel}`, { name: 'renamed room' }),
  op('POST', `/chats/${channel}/members`, { userId: memberId }),
];

describe('atomic batches beyond records', () => {
  it('a failure undoes webhooks, secrets, channels, messages and members with the rest, and publishes nothing', async () => {
    const before = await state();
    const mark = events.length;
    const ops = [...writes(), op('DELETE', `/credentials/${secret}`), op('DELETE', `/webhooks/${hook}`), op('POST', '/database/jobs', { title: '' })];
    const r = await batch({ atomic: true, operations: ops });
    expect(r.status).toBe(422);
    expect(r.body.error.details.index).toBe(ops.length - 1);
    expect(events.length).toBe(mark);
    expect(await state()).toEqual(before);
  });

  it('without a failure every write is applied, its events published after', async () => {
    const mark = events.length;
    const r = await batch({ atomic: true, operations: writes() });
    expect(r.status).toBe(200);
    expect(r.body.data.every((x: { status: number }) => x.status < 300)).toBe(true);
    const after = await state();
    expect(after.hooks.map((h: { name: string }) => h.name).sort()).toEqual(['new hook', 'renamed hook']);
    expect(after.secrets.find((s: { _id: string }) => s._id === secret).description).toBe('changed');
    expect(after.secrets.some((s: { name: string }) => s.name === 'SECOND_KEY')).toBe(true);
    expect(after.channel.name).toBe('renamed room');
    expect(after.messages.map((m: { text: string }) => m.text).sort()).toEqual(['edited', 'from the batch']);
    expect(after.members.some((m: { _id?: string; userId?: string }) => (m.userId ?? m._id) === memberId)).toBe(true);
    expect(events.length).toBeGreaterThan(mark);
  });

  it('refuses a write it cannot undo, naming it, before anything runs', async () => {
    const r = await batch({ atomic: true, operations: [op('POST', '/credentials', { name: 'NEVER_KEY', value: 'never-value-1' }), op('POST', '/users', { email: 'x@example.test', password: 'user-password-1', name: 'X' })] });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toMatchObject({ index: 1, operation: 'POST /app/demo/users' });
    expect((await v2('GET', '/credentials?limit=100')).body.data.some((s: { name: string }) => s.name === 'NEVER_KEY')).toBe(false);
  });
});
