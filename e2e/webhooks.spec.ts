// Webhooks: created in the console (secret shown once), a real delivery to a local receiver
// appears in the delivery log with its request and response, the active toggle.
import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { test, expect, expectAccessible } from './fixtures';

test('create a webhook, see a delivery to a local receiver in the log, toggle it off', async ({ signedIn: page, ws }) => {
  test.setTimeout(60_000);
  const received: Array<{ headers: Record<string, string>; body: string }> = [];
  const receiver: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => { received.push({ headers: req.headers as Record<string, string>, body }); res.writeHead(200, { 'content-type': 'text/plain' }); res.end('thanks'); });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  try {
    await ws.api('POST', '/database', { _id: 'orders', setting: { read: 'private', write: 'private', update: 'private' } });
    await page.goto(`/app/${ws.id}/webhooks`);
    await page.getByRole('button', { name: 'New webhook' }).click();
    const d = page.getByRole('dialog', { name: 'New webhook' });
    await d.getByLabel('Name *').fill('Orders');
    await d.getByLabel('URL *').fill(url);
    await expectAccessible(page, 'new webhook dialog');
    await d.getByRole('button', { name: 'Create webhook' }).click();
    const secretDialog = page.getByRole('dialog', { name: 'Signing secret' });
    const secret = (await secretDialog.locator('code').filter({ hasText: /^whsec_/ }).textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await secretDialog.getByRole('button', { name: 'Close' }).click();
    await expectAccessible(page, 'webhooks');

    await ws.api('POST', '/database/orders', { total: 42 });
    await page.getByRole('link', { name: 'Deliveries of Orders' }).click();
    const row = page.getByRole('row').filter({ hasText: 'record.created' });
    await expect(row).toBeVisible({ timeout: 15_000 });
    await expect(row).toContainText('200');
    expect(received).toHaveLength(1);
    // The receiver can verify the signature with the secret the console showed.
    const payload = new Webhook(secret).verify(received[0].body, received[0].headers) as { type: string; data: { total: number } };
    expect(payload).toMatchObject({ type: 'record.created', data: { total: 42 } });
    await row.getByRole('button', { name: /^Details of attempt 1/ }).click();
    const detail = page.getByRole('dialog', { name: 'record.created, attempt 1' });
    await expect(detail).toContainText('webhook-signature');
    await expect(detail).toContainText('thanks');
    await expectAccessible(page, 'delivery detail');
    await detail.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect(page.getByRole('row').filter({ hasText: 'webhook.test' })).toBeVisible({ timeout: 15_000 });

    await page.goto(`/app/${ws.id}/webhooks`);
    // Controlled by the server's answer: it turns off once the change is saved.
    await page.getByLabel('Active: Orders').click();
    await expect(page.getByLabel('Active: Orders')).not.toBeChecked();
    expect((await ws.api('GET', '/webhooks')).body.data[0].active).toBe(false);
  } finally {
    receiver.close();
  }
});

test('a failed delivery: the retry time shown, the body pretty-printed, sent again by hand', async ({ signedIn: page, ws }) => {
  test.setTimeout(60_000);
  let answer = 503;
  const received: Array<{ headers: Record<string, string>; body: string }> = [];
  const receiver: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => { received.push({ headers: req.headers as Record<string, string>, body }); res.writeHead(answer, { 'content-type': 'application/json' }); res.end('{"ok":false,"why":"down"}'); });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    await ws.api('POST', '/database', { _id: 'orders', setting: { read: 'private', write: 'private', update: 'private' } });
    const hook = (await ws.api('POST', '/webhooks', { name: 'Flaky', url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`, events: ['record.*'] })).body;
    await ws.api('POST', '/database/orders', { total: 7 });
    // The server's e2e retry delays are 200 and 400 ms: three attempts, all failed.
    await expect.poll(async () => (await ws.api('GET', `/webhooks/${hook._id}/logs`)).body.meta.total, { timeout: 15_000 }).toBe(3);
    await page.goto(`/app/${ws.id}/webhooks/${hook._id}`);
    await page.getByRole('button', { name: /^Details of attempt 1 of record\.created/ }).click();
    const detail = page.getByRole('dialog', { name: 'record.created, attempt 1' });
    // Its retry came (attempt 2 is listed): said with its time.
    await expect(detail).toContainText('Retried at');
    // Pretty-printed: one key a line.
    await expect(detail.locator('pre').nth(1)).toContainText('\n  "type": "record.created"');
    await expect(detail.locator('pre').nth(2)).toContainText('\n  "why": "down"');
    await expectAccessible(page, 'delivery detail with a retry');

    answer = 200;
    await detail.getByRole('button', { name: 'Send this event again' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Sent record.created again' })).toContainText('the receiver answered 200');
    await expect(page.getByRole('row').filter({ hasText: 'sent again by hand' })).toContainText('200');
    expect(received).toHaveLength(4);
    expect(received[3].headers['webhook-id']).toBe(received[0].headers['webhook-id']);
    expect(received[3].body).toBe(received[0].body);
  } finally {
    receiver.close();
  }
});
