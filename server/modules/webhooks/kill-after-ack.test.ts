// Acknowledged means delivered, even when the process dies right after its answer: a child server
// started with HOMEBASE_TEST_HOLD_DELIVERIES=1 answers every write but never stores a webhook
// delivery (as a process SIGKILLed between its answer and storing them); it acknowledges a write
// of every kind that publishes an event (record, user, file, channel, message) and is then
// SIGKILLed. A server started again on the same data delivers exactly the events those writes
// published: each once, signed (verified with standardwebhooks), with the id it was published
// under. On PostgreSQL the events were stored with their writes (the outbox) and the new process
// takes them over from the dead one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { TEST_ADMIN, TEST_DRIVER } from '../../test/harness.js';
import { PG_SKIP_REASON } from '../../test/pg-cluster.js';
import { usePgDatabase, type PgSuite } from '../../test/pg-suite.js';
import { serveJson, type Started } from '../../test/spawn.js';
import { startReceiver, waitFor, type Receiver } from '../../test/receiver.js';

const CONSOLE_TOKEN = 'hbc_kill-after-ack-console-token-0001';
const skip = TEST_DRIVER === 'postgres' && !!PG_SKIP_REASON;

describe.skipIf(skip)(`a server SIGKILLed right after acknowledging writes (${TEST_DRIVER})`, () => {
  const suite: PgSuite | undefined = TEST_DRIVER === 'postgres' ? usePgDatabase('killack') : undefined;
  let dir: string;
  let rx: Receiver;
  const children: Started[] = [];

  const start = async (env: Record<string, string> = {}): Promise<Started> => {
    const where = suite ? ['--database', suite.db.url, '--files', join(dir, 'files')] : ['--data', dir];
    const started = await serveJson([...where, '--port', '0', '--console-token', CONSOLE_TOKEN, '--admin-password', TEST_ADMIN.password, '--quiet'], env);
    children.push(started);
    return started;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'homebase-killack-'));
    rx = await startReceiver();
  });
  afterAll(async () => {
    for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.child.exitCode !== null || c.child.signalCode ? undefined : new Promise((r) => c.child.once('exit', r)))));
    await rx?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers every event of the acknowledged writes once after a restart', async () => {
    const first = await start({ HOMEBASE_TEST_HOLD_DELIVERIES: '1' });
    const base = first.line.url;
    const tokenRes = await fetch(`${base}/workspaces/demo/token`, { method: 'POST', headers: { authorization: `Bearer ${CONSOLE_TOKEN}` } });
    expect(tokenRes.status).toBe(200);
    const token = (await tokenRes.json()).token as string;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}/app/demo${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body instanceof FormData ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: body instanceof FormData ? body : JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };

    const hook = await call('POST', '/webhooks', { name: 'all', url: `${rx.url}/hook`, events: ['*'] });
    expect(hook.status).toBe(201);
    expect((await call('POST', '/database', { _id: 'items', setting: { read: 'public', write: 'private', update: 'private' } })).status).toBe(201);

    // One acknowledged write of each kind; what each one's event must carry.
    const expected: Array<{ type: string; id: string }> = [];
    const acked = (type: string, res: { status: number; body: { _id: string } }, status: number, id = res.body?._id) => {
      expect(res.status, type).toBe(status);
      expected.push({ type, id });
    };
    const record = await call('POST', '/database/items', { n: 1 });
    acked('record.created', record, 201);
    const user = await call('POST', '/users', { email: 'killed@example.com', password: 'killed-password-1' });
    acked('user.created', user, 201);
    acked('user.updated', await call('PATCH', `/users/${user.body._id}`, { name: 'Renamed' }), 200);
    const form = new FormData();
    form.append('file', new Blob(['kill -9 right after this']), 'note.txt');
    const file = await call('POST', '/storage/upload', form);
    acked('file.uploaded', file, 201);
    acked('file.deleted', await call('DELETE', `/storage/${file.body._id}`), 204, file.body._id);
    const channel = await call('POST', '/chats/channels', { name: 'room' });
    acked('channel.created', channel, 201);
    const message = await call('POST', `/chats/${channel.body._id}/messages`, { text: 'hello' });
    acked('message.created', message, 201);
    acked('message.updated', await call('PATCH', `/chats/messages/${message.body._id}`, { text: 'edited' }), 200);
    acked('message.deleted', await call('DELETE', `/chats/messages/${message.body._id}`), 204, message.body._id);
    acked('channel.updated', await call('POST', `/chats/${channel.body._id}/members`, { userId: user.body._id }), 201, channel.body._id);
    acked('channel.deleted', await call('DELETE', `/chats/channels/${channel.body._id}`), 204, channel.body._id);
    acked('user.deleted', await call('DELETE', `/users/${user.body._id}`), 204, user.body._id);

    // Killed with every write acknowledged and none of their deliveries stored.
    expect(rx.received).toHaveLength(0);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    const second = await start();
    await waitFor(() => rx.received.length >= expected.length, 30_000, 'the deliveries of every acknowledged write');
    // Every delivery attempted and logged: nothing more is coming.
    const logs = async () => (await (await fetch(`${second.line.url}/app/demo/webhooks/${hook.body._id}/logs?limit=100`, {
      headers: { authorization: `Bearer ${token}` },
    })).json()) as { data: Array<{ eventId: string }>; meta: { total: number } };
    await waitFor(async () => (await logs()).meta.total >= expected.length, 15_000, 'every delivery logged');
    expect((await logs()).meta.total).toBe(expected.length);

    const got = rx.received.map((r) => {
      const payload = new Webhook(hook.body.secret).verify(r.body, r.headers) as { id: string; type: string; data: { _id: string } };
      expect(r.headers['webhook-id']).toBe(payload.id);
      return { type: payload.type, id: payload.data._id, eventId: payload.id };
    });
    const key = (e: { type: string; id: string }) => `${e.type} ${e.id}`;
    expect(got.map(key).sort()).toEqual(expected.map(key).sort());
    expect(new Set(got.map((g) => g.eventId)).size).toBe(expected.length);
  }, 120_000);
});
