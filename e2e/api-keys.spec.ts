// API keys: made in the console with a name and scopes, the value shown once (copy button, "you
// will not see it again"), used from the test against v1 to prove it works, then revoked after a
// confirmation: the same request answers 401.
import { test, expect, expectAccessible } from './fixtures';

test('an API key is made, shown once, works on v1, and is refused once revoked', async ({ signedIn: page, ws }) => {
  await ws.api('POST', '/database', { _id: 'notes', setting: { read: 'private', write: 'private', update: 'private' }, fields: [{ _id: 'text', name: 'Text', type: 'string' }] });
  expect((await ws.api('POST', '/database/notes', { text: 'hello' })).status).toBe(201);
  await page.goto(`/app/${ws.id}`);
  await page.getByRole('navigation', { name: 'Workspace pages' }).getByRole('link', { name: /^API keys/ }).click();
  await expect(page).toHaveURL(new RegExp(`/app/${ws.id}/api-keys$`));
  await expect(page.getByText('No API key yet.')).toBeVisible();
  await expectAccessible(page, 'API keys, empty');

  await page.getByRole('button', { name: 'New API key' }).click();
  const form = page.getByRole('dialog', { name: 'New API key' });
  await form.getByLabel('Name *').fill('nightly-export');
  await expect(form.getByRole('checkbox')).toHaveCount(9);
  await form.getByRole('checkbox', { name: /database:read/ }).check();
  await form.getByRole('checkbox', { name: /storage:read/ }).check();
  await form.getByLabel('Expires').fill('2099-01-01T12:00');
  await expectAccessible(page, 'new API key dialog');
  await form.getByRole('button', { name: 'Create key' }).click();

  const shown = page.getByRole('dialog', { name: 'Your new API key' });
  await expect(shown).toContainText('you will not see it again');
  const key = (await shown.getByLabel('Value of nightly-export').textContent())!.trim();
  expect(key).toMatch(/^hbk_[A-Za-z0-9]+_[A-Za-z0-9_-]+$/);
  await expect(shown.getByRole('button', { name: 'Copy the API key' })).toBeVisible();
  await expectAccessible(page, 'new key shown');
  await shown.getByRole('button', { name: 'I have copied it' }).click();
  await expect(shown).toBeHidden();

  // Listed without its value; the value is on the page no more.
  const row = page.getByRole('row').filter({ hasText: 'nightly-export' });
  await expect(row).toContainText('database:read');
  await expect(row).toContainText('storage:read');
  await expect(row).toContainText(new Date('2099-01-01T12:00').toLocaleString());
  await expect(page.locator('body')).not.toContainText(key);
  await page.reload();
  await expect(page.getByRole('row').filter({ hasText: 'nightly-export' })).toBeVisible();
  await expect(page.locator('body')).not.toContainText(key);
  expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }))).not.toContain(key);
  const listed = await fetch(`${new URL(ws.base).origin}/api/v2/app/${ws.id}/api-keys`, { headers: { authorization: `Bearer ${await ws.adminToken()}` } });
  expect((await listed.json()).data).toMatchObject([{ name: 'nightly-export', scopes: ['database:read', 'storage:read'], expiresAt: new Date('2099-01-01T12:00').toISOString() }]);

  // The key works on v1 within its scopes, and only within them.
  const read = await fetch(`${ws.base}/database/notes`, { headers: { 'x-api-key': key } });
  expect(read.status).toBe(200);
  expect((await read.json()).data.map((r: { text: string }) => r.text)).toEqual(['hello']);
  const write = await fetch(`${ws.base}/database/notes`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'no' }) });
  expect(write.status).toBe(403);

  await page.getByRole('button', { name: 'Revoke nightly-export' }).click();
  const confirm = page.getByRole('dialog', { name: 'Revoke nightly-export' });
  await expect(confirm).toContainText('401');
  await confirm.getByRole('button', { name: 'Revoke key' }).click();
  await expect(page.getByText('No API key yet.')).toBeVisible();
  const after = await fetch(`${ws.base}/database/notes`, { headers: { 'x-api-key': key } });
  expect(after.status).toBe(401);
  expect((await after.json()).error.code).toBe('UNAUTHORIZED');
});

test('a bad expiry shows the server\'s error at the field', async ({ signedIn: page, ws }) => {
  await page.goto(`/app/${ws.id}/api-keys`);
  await page.getByRole('button', { name: 'New API key' }).click();
  const form = page.getByRole('dialog', { name: 'New API key' });
  await form.getByLabel('Name *').fill('old');
  await form.getByRole('checkbox', { name: /users:read/ }).check();
  await form.getByLabel('Expires').fill('2001-01-01T00:00');
  await form.getByRole('button', { name: 'Create key' }).click();
  await expect(form.getByLabel('Expires')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByRole('dialog', { name: 'Your new API key' })).toBeHidden();
  const listed = await fetch(`${new URL(ws.base).origin}/api/v2/app/${ws.id}/api-keys`, { headers: { authorization: `Bearer ${await ws.adminToken()}` } });
  expect((await listed.json()).data).toEqual([]);
});
