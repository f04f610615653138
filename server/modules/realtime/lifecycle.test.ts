// Realtime connection lifecycle: authentication of the upgrade, the heartbeat dropping dead
// clients, the slow-consumer bound, and sockets closed with their workspace or the server.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVER, startTestServer, type TestServer } from '../../test/harness.js';
import { TestSocket, realtimeUrl } from './test-socket.js';

let t: TestServer;
beforeAll(async () => { t = await startTestServer({ realtimePingInterval: 100, realtimeMaxBuffered: 64 * 1024 }); });
afterAll(async () => { await t.close(); });

const hub = () => t.srv.ctx.state.realtime.hub!;
const until = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('connecting', () => {
  it('accepts ?token= and Authorization: Bearer, and anonymous sockets', async () => {
    const a = await TestSocket.open(realtimeUrl(t.api, t.adminToken));
    const b = await TestSocket.open(realtimeUrl(t.api), { headers: { authorization: `Bearer ${t.adminToken}` } });
    const anon = await TestSocket.open(realtimeUrl(t.api));
    expect(hub().clientsOf('demo').map((c) => c.auth?.isAdmin ?? null).sort()).toEqual([null, true, true].sort());
    for (const s of [a, b, anon]) s.close();
    await Promise.all([a, b, anon].map((s) => s.waitClose()));
  });

  it('refuses bad tokens (401) and unknown workspaces (404) before upgrading', async () => {
    const bad = await TestSocket.open(realtimeUrl(t.api, 'not-a-token')).catch((e) => e);
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('UNAUTHORIZED');
    const malformed = await TestSocket.open(realtimeUrl(t.api), { headers: { authorization: 'Basic abc' } }).catch((e) => e);
    expect(malformed.status).toBe(401);
    const unknown = await TestSocket.open(realtimeUrl(`${t.url}/app/nope`, t.adminToken)).catch((e) => e);
    expect(unknown.status).toBe(404);
    const other = await TestSocket.open(`${t.url.replace(/^http/, 'ws')}/app/demo/elsewhere`).catch((e) => e);
    expect(other.status).toBe(404);
    const user = await t.user('Eve');
    const foreign = await t.consoleReq('POST', '/workspaces', { _id: 'other', name: 'Other', admin: { email: 'o@example.com', password: 'password-123' } });
    expect(foreign.status).toBe(201);
    const cross = await TestSocket.open(realtimeUrl(`${t.url}/app/other`, user.token)).catch((e) => e);
    expect(cross.status).toBe(401); // a token of workspace demo is not valid in other
    await t.consoleReq('DELETE', '/workspaces/other');
    const rebinding = await TestSocket.open(realtimeUrl(t.api, t.adminToken), { headers: { host: 'evil.example.com' } }).catch((e) => e);
    expect(rebinding.status).toBe(403);
  });
});

describe('refused upgrades', () => {
  /** A refusal is a complete HTTP answer in the contract's shape. */
  const expectRefusal = (refused: any, status: number, code: string) => {
    expect(refused.status).toBe(status);
    expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
    expect(refused.headers.connection).toBe('close');
    expect(refused.headers['content-length']).toBe(String(Buffer.byteLength(refused.text)));
    expect(refused.body).toEqual({ error: { code, message: expect.any(String), details: expect.any(Object) } });
  };
  /** `ws://127.0.0.1:PORT` */
  const wsOrigin = () => new URL(t.url).origin.replace(/^http/, 'ws');

  it('answers 401, 403, 404 and 503 with the contract error body, nosniff and Connection: close', async () => {
    expectRefusal(await TestSocket.open(realtimeUrl(t.api, 'not-a-token')).catch((e) => e), 401, 'UNAUTHORIZED');
    expectRefusal(await TestSocket.open(realtimeUrl(t.api, t.adminToken), { headers: { host: 'evil.example.com' } }).catch((e) => e), 403, 'FORBIDDEN');
    expectRefusal(await TestSocket.open(realtimeUrl(`${t.url}/app/nope`, t.adminToken)).catch((e) => e), 404, 'NOT_FOUND');
    const ws = t.srv.ctx.registry.require('demo');
    ws.busy = true; // as during a snapshot restore or an import
    try {
      const busy = await TestSocket.open(realtimeUrl(t.api, t.adminToken)).catch((e) => e);
      expectRefusal(busy, 503, 'UNAVAILABLE');
      expect(busy.headers['retry-after']).toBe('1');
    } finally {
      ws.busy = false;
    }
  });

  it('answers an upgrade to any other path with a 404 in the contract shape', async () => {
    for (const path of ['/api/app/demo/realtimex', '/api/app/demo/realtime/extra', '/api/elsewhere', '/', '/app/demo/realtime']) {
      const refused = await TestSocket.open(`${wsOrigin()}${path}`).catch((e) => e);
      expectRefusal(refused, 404, 'NOT_FOUND');
    }
    // The DNS-rebinding guard applies there too.
    const foreign = await TestSocket.open(`${wsOrigin()}/api/app/demo/realtimex`, { headers: { host: 'evil.example.com' } }).catch((e) => e);
    expectRefusal(foreign, 403, 'FORBIDDEN');
    // The server is still fine afterwards.
    const ok = await TestSocket.open(realtimeUrl(t.api, t.adminToken));
    ok.close();
    await ok.waitClose();
  });
});

describe('keeping connections healthy', () => {
  it('drops a client that stops answering pings and keeps one that answers', async () => {
    const dead = await TestSocket.open(realtimeUrl(t.api, t.adminToken), { autoPong: false });
    const live = await TestSocket.open(realtimeUrl(t.api, t.adminToken));
    expect((await dead.waitClose()).code).toBe(1006); // terminated, no closing handshake
    expect(live.closed).toBeUndefined();
    expect(hub().clientsOf('demo')).toHaveLength(1);
    live.close();
    await live.waitClose();
  });

  it('closes a consumer that stops reading once its send buffer passes the bound (1013)', async () => {
    // Its own server with a slow heartbeat: a paused socket answers no ping, and on a loaded
    // machine the 100 ms heartbeat could drop it (1006) before the buffer bound does (1013).
    const own = await startTestServer({ realtimePingInterval: 60_000, realtimeMaxBuffered: 64 * 1024 });
    const ownHub = () => own.srv.ctx.state.realtime.hub!;
    const slow = await TestSocket.open(realtimeUrl(own.api, own.adminToken));
    const c = await own.req('POST', '/chats/channels', { body: { name: 'firehose' } });
    expect(await slow.subscribe(`chat:${c.body._id}`)).toMatchObject({ type: 'subscribed' });
    slow.socket.pause(); // stop reading: the kernel buffers fill, then the server's
    const big = 'x'.repeat(256 * 1024);
    for (let i = 0; i < 200 && ownHub().clientsOf('demo').length > 0; i++) {
      own.srv.ctx.bus.publish({ type: 'message.created', app: 'demo', data: { channelId: c.body._id, text: big } });
      await new Promise((r) => setImmediate(r));
    }
    expect(ownHub().clientsOf('demo')).toHaveLength(0);
    slow.socket.resume();
    const closed = await slow.waitClose(30_000);
    expect(closed.code).toBe(1013);
    expect(closed.reason).toMatch(/slow consumer/i);
    await own.close();
  });

  it('pauses reading from a client that floods frames instead of queueing them', async () => {
    // Each frame re-checks the session (two queries on PostgreSQL): there, reading stays paused
    // longer than the 100 ms heartbeat of the shared server allows, so it gets a slow one.
    const own = TEST_DRIVER === 'postgres' ? await startTestServer({ realtimePingInterval: 60_000 }) : t;
    const s = await TestSocket.open(realtimeUrl(own.api, own.adminToken));
    for (let i = 0; i < 500; i++) s.send({ type: 'unsubscribe', topic: `chat:c${i}` });
    await until(() => s.frames.length === 500, TEST_DRIVER === 'postgres' ? 30_000 : 10_000);
    expect(s.frames.every((f) => f.type === 'unsubscribed')).toBe(true);
    s.close();
    await s.waitClose();
    if (own !== t) await own.close();
  });
});

describe('closing', () => {
  it('closes the sockets of a deleted workspace', async () => {
    await t.consoleReq('POST', '/workspaces', { _id: 'gone', name: 'Gone', admin: { email: 'g@example.com', password: 'password-123' } });
    const token = (await t.consoleReq('POST', '/workspaces/gone/token')).body.token;
    const s = await TestSocket.open(realtimeUrl(`${t.url}/app/gone`, token));
    expect((await t.consoleReq('DELETE', '/workspaces/gone')).status).toBe(204);
    expect((await s.waitClose()).code).toBe(1001);
  });

  it('re-checks sockets when the workspace content is replaced (reset)', async () => {
    const user = await t.user('Walter');
    const c = await t.req('POST', '/chats/channels', { body: { name: 'to be wiped' } });
    const admin = await TestSocket.open(realtimeUrl(t.api, t.adminToken));
    const u = await TestSocket.open(realtimeUrl(t.api, user.token));
    expect(await admin.subscribe(`chat:${c.body._id}`)).toMatchObject({ type: 'subscribed' });
    const reset = await t.consoleReq('POST', '/workspaces/demo/reset', {});
    expect(reset.status).toBe(200);
    // the channel is gone: its subscription ends; the user is gone: his socket closes
    expect(await admin.next((f) => f.type === 'unsubscribed')).toMatchObject({ topic: `chat:${c.body._id}`, reason: expect.stringContaining('not found') });
    expect((await u.waitClose()).code).toBe(1008);
    admin.close();
  });

  it('closes every socket on shutdown', async () => {
    const own = await startTestServer({});
    const a = await TestSocket.open(realtimeUrl(own.api, own.adminToken));
    const b = await TestSocket.open(realtimeUrl(own.api));
    await own.close();
    expect((await a.waitClose()).code).toBe(1001);
    expect((await b.waitClose()).code).toBe(1001);
    // and the port no longer accepts connections
    const port = Number(new URL(own.url).port);
    const refused = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, '127.0.0.1');
      sock.on('connect', () => { sock.destroy(); resolve(false); });
      sock.on('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  });
});
