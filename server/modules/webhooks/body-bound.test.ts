// Webhook deliveries and logs keep at most 64 KiB of a body: a large record's event is stored
// (pending delivery) and sent with its data cut down to the ids and `truncated: true`, and a
// log entry's request body is bounded; the delivery file stays small.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';

let t: TestServer;
const data = tempDataDir('hb-webhook-bound-');
beforeAll(async () => { t = await startTestServer({ data: data.dir, webhookRetryDelays: [60_000] }); });
afterAll(async () => { await t.close(); data.remove(); });

it('keeps at most 64 KiB of a body in pending deliveries and logs, marked truncated', async () => {
  expect((await t.req('POST', '/database', { body: { _id: 'big', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
  // A receiver that refuses connections: every attempt fails and stays pending for a retry.
  const hook = await t.req('POST', '/webhooks', { body: { name: 'h', url: 'http://127.0.0.1:9/hook', events: ['record.created'] } });
  expect(hook.status, hook.text).toBe(201);
  const big = 'x'.repeat(900 * 1024);
  for (let i = 0; i < 5; i++) expect((await t.req('POST', '/database/big', { body: { _id: `r${i}`, big } })).status).toBe(201);

  let logs: any;
  for (let i = 0; i < 100; i++) {
    logs = await t.req('GET', `/webhooks/${hook.body._id}/logs?limit=100`);
    if (logs.body.data?.length >= 5) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(logs.body.data).toHaveLength(5);
  expect(logs.text.length).toBeLessThan(5 * 80 * 1024);
  for (const entry of logs.body.data) {
    const sent = JSON.parse(entry.request.body);
    expect(sent.truncated).toBe(true);
    expect(sent.data._id).toMatch(/^r\d$/);
    expect(sent.data.big).toBeUndefined();
  }
  const ws = t.srv.ctx.registry.require('demo');
  const pending = await (await ws.store('webhook_deliveries')).all();
  expect(pending).toHaveLength(5);
  for (const d of pending) expect(JSON.stringify(d).length).toBeLessThan(64 * 1024);
  const files = join(data.dir, 'workspaces', 'demo', 'stores');
  expect((await stat(join(files, 'webhook_deliveries.db'))).size).toBeLessThan(5 * 64 * 1024);
  expect((await stat(join(files, 'webhook_logs.db'))).size).toBeLessThan(5 * 80 * 1024);
});
