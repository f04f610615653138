// Delivery transport and scheduling: ports fetch refuses, HTTPS targets, redirects, and a
// hanging receiver that must not hold up other webhooks.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { clearBetweenTests, startReceiver, waitFor, type Receiver, type ReceiverOptions } from '../../test/receiver.js';

let t: TestServer;
let rx: Receiver;
beforeAll(async () => {
  t = await startTestServer({ webhookRetryDelays: [50] });
  rx = await startReceiver();
});
afterAll(async () => { await t.close(); await rx.close(); });
afterEach(() => clearBetweenTests(t, rx, 'webhooks'));

function publish(type: string, data: Record<string, unknown>, collection?: string) {
  return t.srv.ctx.bus.publish({ type: type as never, app: t.workspace, data, ...(collection ? { collection } : {}) });
}

async function hook(url: string, extra: Record<string, unknown> = {}) {
  const res = await t.req('POST', '/webhooks', { body: { name: 'h', url, events: ['record.*'], ...extra } });
  expect(res.status, res.text).toBe(201);
  return res.body as { _id: string; secret: string };
}

/** A receiver on a given port, or undefined if that port is taken. */
async function receiverOn(port: number, options: ReceiverOptions = {}): Promise<Receiver | undefined> {
  try {
    return await startReceiver({ ...options, port });
  } catch (err) {
    if ((err as { code?: string }).code === 'EADDRINUSE') return undefined;
    throw err;
  }
}

/** A throw-away self-signed certificate for 127.0.0.1, or undefined without openssl. */
function selfSignedCert(): { key: string; cert: string } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'homebase-tls-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1',
    ], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('delivery transport', () => {
  it('delivers to a port fetch refuses (6666)', async (ctx) => {
    const bad = await receiverOn(6666);
    if (!bad) { ctx.skip(); return; } // port taken on this machine
    try {
      const h = await hook(`${bad.url}/hooks`);
      const res = await t.req('POST', `/webhooks/${h._id}/test`);
      expect(res.body, res.text).toMatchObject({ status: 'succeeded', error: null, response: { status: 200, body: 'ok' } });
      expect(bad.received).toHaveLength(1);
      expect(bad.received[0]).toMatchObject({ method: 'POST', url: '/hooks' });
      expect(bad.received[0].headers['content-length']).toBe(String(Buffer.byteLength(bad.received[0].body)));
    } finally {
      await bad.close();
    }
  });

  it('sends HTTPS targets over TLS (a self-signed certificate is refused)', async (ctx) => {
    const tls = selfSignedCert();
    if (!tls) { ctx.skip(); return; }
    const secure = await startReceiver({ tls });
    try {
      const h = await hook(`${secure.url}/hooks`, { active: false });
      const res = await t.req('POST', `/webhooks/${h._id}/test`);
      expect(res.body).toMatchObject({ status: 'failed', response: null });
      expect(res.body.error).toMatch(/self[- ]signed certificate/);
    } finally {
      await secure.close();
    }
  });

  it('does not follow redirects, and logs only the first 4 KiB of an answer', async () => {
    rx.respond = (r) => (r.url === '/moved'
      ? { status: 302, headers: { location: `${rx.url}/there` }, body: 'elsewhere' }
      : { status: 200, body: 'x'.repeat(100_000) });
    const moved = await hook(`${rx.url}/moved`, { active: false });
    const res = await t.req('POST', `/webhooks/${moved._id}/test`);
    expect(res.body).toMatchObject({ status: 'failed', error: 'Receiver answered HTTP 302', response: { status: 302, body: 'elsewhere' } });
    expect(rx.received.map((r) => r.url)).toEqual(['/moved']);
    const big = await hook(`${rx.url}/big`, { active: false });
    const res2 = await t.req('POST', `/webhooks/${big._id}/test`);
    expect(res2.body).toMatchObject({ status: 'succeeded', response: { status: 200 } });
    expect(res2.body.response.body).toBe('x'.repeat(4096));
  });
});

describe('delivery concurrency', () => {
  it('a hanging receiver does not hold up another webhook', async () => {
    const hang = await startReceiver();
    hang.respond = () => ({ status: 200, delayMs: 60_000 });
    try {
      await hook(hang.url, { filter: { collection: 'slow' } });
      await hook(`${rx.url}/fast`, { filter: { collection: 'fast' } });
      for (let i = 0; i < 12; i++) publish('record.created', { _id: `s${i}` }, 'slow');
      // Four attempts of the slow webhook hang (its receiver answers after a minute)...
      await waitFor(() => hang.received.length >= 4, 10_000, 'the hanging receiver to be called');
      publish('record.created', { _id: 'f1' }, 'fast');
      // ...and the other webhook's delivery arrives while they still hang.
      await waitFor(() => rx.received.length === 1, 10_000, 'the other webhook\'s delivery');
      // At most 4 attempts of one webhook at once: the rest wait their turn.
      expect(hang.received).toHaveLength(4);
    } finally {
      await hang.close();
    }
  });
});
