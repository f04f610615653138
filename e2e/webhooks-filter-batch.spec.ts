// The webhook form's filter (collection, match) and batch settings: saved, shown back after a
// reload, and a match the server refuses shows its 422 at the match editor.
import { test, expect, expectAccessible } from './fixtures';

test('filter and batch settings are saved, shown back when editing, and a bad match shows the server\'s error', async ({ signedIn: page, ws }) => {
  test.setTimeout(60_000);
  await ws.api('POST', '/database', { _id: 'orders', setting: { read: 'private', write: 'private', update: 'private' } });
  await ws.api('POST', '/database', { _id: 'invoices', setting: { read: 'private', write: 'private', update: 'private' } });
  await page.goto(`/app/${ws.id}/webhooks`);
  await page.getByRole('button', { name: 'New webhook' }).click();
  const d = page.getByRole('dialog', { name: 'New webhook' });
  await d.getByLabel('Name *').fill('Big paid orders');
  await d.getByLabel('URL *').fill('http://127.0.0.1:9/hook');
  await d.getByLabel('Collection').selectOption('orders');
  const match = d.getByRole('textbox', { name: 'Match (JSON conditions on the event\'s data)' });
  await match.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText('{ "status": "paid", "total": { "$gte": 100 } }');
  await d.getByLabel('Max events').fill('5');
  await d.getByLabel('Max wait (ms)').fill('2000');
  await expectAccessible(page, 'webhook form with filter and batch');
  await d.getByRole('button', { name: 'Create webhook' }).click();
  await page.getByRole('dialog', { name: 'Signing secret' }).getByRole('button', { name: 'Close' }).click();

  const stored = (await ws.api('GET', '/webhooks')).body.data;
  expect(stored).toHaveLength(1);
  expect(stored[0]).toMatchObject({ filter: { collection: 'orders', match: { status: 'paid', total: { $gte: 100 } } }, batch: { maxEvents: 5, maxWaitMs: 2000 } });
  await expect(page.getByRole('row').filter({ hasText: 'Big paid orders' })).toContainText('batches of 5 / 2000 ms');

  await page.reload();
  await page.getByRole('button', { name: 'Edit Big paid orders' }).click();
  const e = page.getByRole('dialog', { name: 'Edit Big paid orders' });
  await expect(e.getByLabel('Collection')).toHaveValue('orders');
  const shown = e.getByRole('textbox', { name: 'Match (JSON conditions on the event\'s data)' });
  await expect(shown).toContainText('"status": "paid"');
  await expect(shown).toContainText('"$gte": 100');
  await expect(e.getByLabel('Max events')).toHaveValue('5');
  await expect(e.getByLabel('Max wait (ms)')).toHaveValue('2000');

  // An unknown operator: the server's 422 is shown at the match editor; nothing changes.
  await shown.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText('{ "status": { "$regex": "^p" } }');
  await e.getByRole('button', { name: 'Save' }).click();
  const err = e.getByTestId('match-error');
  await expect(err).toBeVisible();
  await expect(err).toContainText('$regex');
  await expectAccessible(page, 'webhook form with a server error');
  expect((await ws.api('GET', '/webhooks')).body.data[0].filter.match).toEqual({ status: 'paid', total: { $gte: 100 } });

  // Emptying everything removes the filter and the batch.
  await shown.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await e.getByLabel('Collection').selectOption('');
  await e.getByLabel('Max events').fill('');
  await e.getByLabel('Max wait (ms)').fill('');
  await e.getByRole('button', { name: 'Save' }).click();
  await expect(e).toBeHidden();
  const cleared = (await ws.api('GET', '/webhooks')).body.data[0];
  expect(cleared.filter ?? null).toBeNull();
  expect(cleared.batch ?? null).toBeNull();
});
