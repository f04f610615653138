// Three Homebase processes on one PostgreSQL database behind Debian's HAProxy (health-checked on
// /api/health), as docs/scaling.md shows a team would run them, under a steady write load with
// realtime subscribers and a webhook. Two faults on the way: one process is SIGKILLed and
// started again, another has every database connection terminated (57P01) again and again for a
// few seconds; a subscriber goes away under load and comes back after both faults with the id of
// the last event it saw. Then: every acknowledged create is stored; the cut process recovered by itself
// (no crash) and both faulted processes serve writes again; a subscriber on the process that had
// no fault received every acknowledged create, those the killed process acknowledged in its
// very last moment included (each is stored with its record, and a live process relays what the
// killed one had not), and so did the client that came back, counting what it got before leaving
// and what the resume sent it; the webhook received every acknowledged create, and where one came
// twice it carried the same `webhook-id` (the documented de-duplication key); no stored event is
// left undispatched. Runs in the PostgreSQL suite only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { TEST_DRIVER } from './harness.js';
import { PG_SKIP_REASON } from './pg-cluster.js';
import { usePgDatabase } from './pg-suite.js';
import { serveJson, type Started } from './spawn.js';
import { startReceiver, waitFor, type Receiver } from './receiver.js';
import { TestSocket, realtimeUrl } from '../modules/realtime/test-socket.js';

const HAPROXY = '/usr/sbin/haproxy';
const CONSOLE_TOKEN = 'hbc_three-processes-console-token-0001';
const ADMIN_PASSWORD = 'three-processes-pw-1';
const NAMES = ['p1', 'p2', 'p3'] as const;
type Name = typeof NAMES[number];

const skip = TEST_DRIVER !== 'postgres' || !!PG_SKIP_REASON || !existsSync(HAPROXY);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => { const { port } = srv.address() as net.AddressInfo; srv.close(() => resolve(port)); });
  });
}

/** The HAProxy configuration of docs/scaling.md, on these ports. */
export function haproxyConfig(lbPort: number, servers: Array<{ name: string; port: number }>): string {
  return `global
    maxconn 4096

defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    timeout tunnel 1h
    option redispatch
    retries 3
    retry-on conn-failure empty-response

frontend homebase
    bind 127.0.0.1:${lbPort}
    default_backend homebase

backend homebase
    balance roundrobin
    option httpchk GET /api/health
    http-check expect status 200
    default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
    http-response set-header X-Homebase-Server %[srv_name]
${servers.map((s) => `    server ${s.name} 127.0.0.1:${s.port} check`).join('\n')}
`;
}

describe.skipIf(skip)('three processes behind HAProxy on one database', () => {
  const suite = usePgDatabase('three');
  let files: string;
  let dir: string;
  let rx: Receiver;
  let lb: string;
  let haproxy: ChildProcess | undefined;
  const ports = {} as Record<Name, number>;
  const procs = {} as Record<Name, Started>;
  const crashed: string[] = [];

  const start = async (name: Name): Promise<Started> => {
    const url = `${suite.db.url}${suite.db.url.includes('?') ? '&' : '?'}application_name=hb-${name}`;
    const started = await serveJson(['--database', url, '--files', files, '--port', String(ports[name]), '--console-token', CONSOLE_TOKEN,
      '--admin-password', ADMIN_PASSWORD, '--quiet', '--webhook-retry-delays', '200,500,1000,2000'], { HOMEBASE_LOG_LEVEL: 'warn' });
    started.child.on('exit', (code, signal) => { if (signal !== 'SIGKILL' && signal !== 'SIGTERM') crashed.push(`${name} exited ${code ?? signal}: ${started.stderr().slice(-2000)}`); });
    procs[name] = started;
    return started;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'homebase-three-'));
    files = join(dir, 'files');
    for (const n of NAMES) ports[n] = await freePort();
    const lbPort = await freePort();
    lb = `http://127.0.0.1:${lbPort}`;
    await start('p1'); // creates the workspace; the others find it
    await Promise.all([start('p2'), start('p3')]);
    const cfg = join(dir, 'haproxy.cfg');
    writeFileSync(cfg, haproxyConfig(lbPort, NAMES.map((name) => ({ name, port: ports[name] }))));
    haproxy = spawn(HAPROXY, ['-f', cfg, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
    // Every server up behind the balancer.
    const seen = new Set<string>();
    await waitFor(async () => {
      const res = await fetch(`${lb}/api/health`).catch(() => undefined);
      const by = res?.headers.get('x-homebase-server');
      if (res?.ok && by) seen.add(by);
      return seen.size === 3;
    }, 30_000, 'the three servers up behind HAProxy');
    rx = await startReceiver();
  }, 90_000);

  afterAll(async () => {
    haproxy?.kill('SIGKILL');
    for (const p of Object.values(procs)) p.child.kill('SIGTERM');
    await Promise.all(Object.values(procs).map((p) => (p.child.exitCode !== null || p.child.signalCode ? undefined : new Promise((r) => p.child.once('exit', r)))));
    await rx?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write, recovers from both faults by itself, relays and delivers every event', async () => {
    const api = `${lb}/api/app/demo`;
    const tokenRes = await fetch(`${lb}/api/workspaces/demo/token`, { method: 'POST', headers: { authorization: `Bearer ${CONSOLE_TOKEN}` } });
    expect(tokenRes.status).toBe(200);
    const token = (await tokenRes.json()).token as string;
    const call = (method: string, path: string, body?: unknown) => fetch(`${api}${path}`, {
      method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    expect((await call('POST', '/database', { _id: 'items', setting: { read: 'public', write: 'private', update: 'private' } })).status).toBe(201);
    expect((await call('POST', '/webhooks', { name: 'all', url: `${rx.url}/hook`, events: ['record.created'], active: true })).status).toBe(201);
    // Every process knows the collection (relayed schema) before its socket subscribes.
    const direct = (name: Name) => `http://127.0.0.1:${ports[name]}/api/app/demo`;
    for (const n of NAMES) await waitFor(async () => (await fetch(`${direct(n)}/database/items`, { headers: { authorization: `Bearer ${token}` } })).status === 200, 10_000, `items on ${n}`);

    // A subscriber on each process, straight to it (so a fault is known to be its own or not).
    const subs = {} as Record<Name, { socket: TestSocket; ids: Set<string> }>;
    for (const n of NAMES) {
      const socket = await TestSocket.open(realtimeUrl(direct(n), token));
      expect(await socket.subscribe('database:items')).toMatchObject({ type: 'subscribed' });
      const ids = new Set<string>();
      socket.socket.on('message', (raw) => { const f = JSON.parse(raw.toString()); if (f.type === 'event' && f.event === 'record.created') ids.add(f.data._id); });
      subs[n] = { socket, ids };
    }

    // The steady load: four writers through the balancer, each retrying a refused write (a real
    // client would); every 201 is an acknowledged create.
    const acked: Array<{ id: string; by: string; at: number }> = [];
    const failures: number[] = [];
    let writing = true;
    let seq = 0;
    const writer = async () => {
      while (writing) {
        const n = seq++;
        const res = await call('POST', '/database/items', { n }).catch(() => undefined);
        if (res?.status === 201) {
          const body = await res.json();
          acked.push({ id: body._id, by: res.headers.get('x-homebase-server') ?? '?', at: Date.now() });
        } else {
          failures.push(res?.status ?? 0);
          await res?.body?.cancel().catch(() => undefined);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    };
    const writers = Array.from({ length: 4 }, () => writer());
    const ackedBy = (name: string, after = 0) => acked.filter((a) => a.by === name && a.at > after).length;

    // A client that goes away under load: it keeps the id of the last event it saw.
    const leaver = await TestSocket.open(realtimeUrl(direct('p1'), token));
    expect(await leaver.subscribe('database:items')).toMatchObject({ type: 'subscribed' });
    const beforeLeaving = new Set<string>();
    let lastSeen = '';
    leaver.socket.on('message', (raw) => { const f = JSON.parse(raw.toString()); if (f.type === 'event') { beforeLeaving.add(f.data._id); lastSeen = f.id; } });
    await waitFor(() => beforeLeaving.size >= 20, 30_000, 'events before leaving');
    leaver.close();
    await leaver.waitClose();
    const leftAt = Date.now();

    // Fault 1: p2 SIGKILLed under load, then started again on its port.
    await waitFor(() => ackedBy('p2') >= 20 && acked.length >= 100, 30_000, 'writes through every process');
    const killedAt = Date.now();
    procs.p2.child.kill('SIGKILL');
    await new Promise((r) => procs.p2.child.once('exit', r));
    await start('p2');
    const restartedAt = Date.now();

    // Fault 2: every connection of p3 terminated (57P01), again and again, for 3 seconds.
    const admin = new pg.Client({ connectionString: suite.db.url });
    await admin.connect();
    const cutUntil = Date.now() + 3000;
    let terminated = 0;
    while (Date.now() < cutUntil) {
      const { rows } = await admin.query(`SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity WHERE application_name = 'hb-p3' AND pid <> pg_backend_pid()`);
      terminated += rows.filter((r) => r.t).length;
      await new Promise((r) => setTimeout(r, 100));
    }
    await admin.end();
    const cutEndedAt = Date.now();
    expect(terminated).toBeGreaterThan(0);

    // Writes resume through both faulted processes (the outcome, not a timing).
    await waitFor(() => ackedBy('p2', restartedAt) >= 10 && ackedBy('p3', cutEndedAt) >= 10, 30_000, 'writes through the restarted and the cut process');
    writing = false;
    await Promise.all(writers);
    expect(crashed).toEqual([]);
    expect(procs.p3.child.exitCode).toBeNull();

    // Nothing acknowledged is lost.
    const stored = new Set<string>();
    for (let offset = 0; ; offset += 100) {
      const page = await (await call('GET', `/database/items?limit=100&offset=${offset}&sort=createdAt`)).json();
      for (const r of page.data) stored.add(r._id);
      if (page.data.length < 100) break;
    }
    expect(acked.filter((a) => !stored.has(a.id))).toEqual([]);

    // The subscriber on p1 (no fault of its own) got every acknowledged create, those the killed
    // p2 acknowledged just before SIGKILL included (a live process dispatched what p2 had not).
    const lastOfP2 = acked.filter((a) => a.by === 'p2' && a.at >= killedAt - 1000 && a.at <= killedAt).length;
    await waitFor(() => acked.every((a) => subs.p1.ids.has(a.id)), 15_000, 'every event at the subscriber of p1');
    const missedByP1 = acked.filter((a) => !subs.p1.ids.has(a.id)).length;
    expect(missedByP1).toBe(0);

    // The client comes back after both faults with the last id it saw, and receives every
    // acknowledged create it had not seen (at least once: duplicates share their id).
    const back = await TestSocket.open(`${realtimeUrl(direct('p1'), token)}&lastEventId=${encodeURIComponent(lastSeen)}`);
    const afterReturn = new Set<string>();
    back.socket.on('message', (raw) => { const f = JSON.parse(raw.toString()); if (f.type === 'event') afterReturn.add(f.data._id); });
    expect(await back.subscribe('database:items')).toMatchObject({ type: 'subscribed', resumed: true });
    await waitFor(() => acked.every((a) => beforeLeaving.has(a.id) || afterReturn.has(a.id)), 15_000, 'every event after the last one seen');
    back.close();
    expect(acked.filter((a) => a.at > leftAt && !afterReturn.has(a.id))).toEqual([]);

    // Every acknowledged create reaches the webhook, those p2 acknowledged just before SIGKILL
    // included (each delivery is owed by an event stored with its record); a second send of one
    // carries the same id.
    const deliveries = () => rx.received.filter((r) => r.url === '/hook').map((r) => ({ id: JSON.parse(r.body).data._id as string, webhookId: r.headers['webhook-id'] }));
    await waitFor(() => { const got = new Set(deliveries().map((d) => d.id)); return acked.every((a) => got.has(a.id)); }, 30_000, 'a delivery of every acknowledged create').catch((err) => {
      const got = new Set(deliveries().map((d) => d.id));
      console.error(JSON.stringify({ killedAt, restartedAt, cutEndedAt, missing: acked.filter((a) => !got.has(a.id)).map((a) => ({ ...a, rel: a.at - killedAt })) }));
      throw err;
    });
    const webhookIdOf = new Map<string, Set<string>>();
    for (const d of deliveries()) {
      if (!webhookIdOf.has(d.id)) webhookIdOf.set(d.id, new Set());
      webhookIdOf.get(d.id)!.add(d.webhookId);
    }
    expect([...webhookIdOf.values()].filter((ids) => ids.size !== 1)).toEqual([]);
    // Every event stored with its write was dispatched, and its row went.
    await waitFor(async () => (await suite.db.query<{ n: number }>('SELECT count(*)::int AS n FROM homebase_outbox')).rows[0].n === 0, 15_000, 'the outbox emptied');

    for (const n of NAMES) subs[n].socket.close();
    // Figures for the report (seen with --reporter verbose or in the log).
    console.info(JSON.stringify({
      acked: acked.length, refused: failures.length, terminated, missedByP1, ackedByP2InItsLastSecond: lastOfP2,
      missedByP3: acked.filter((a) => !subs.p3.ids.has(a.id)).length,
      deliveries: deliveries().length, distinctDelivered: webhookIdOf.size,
    }));
  }, 110_000);
});
