// Users: search and page, create (a field error first), change role, impersonate, send a
// recovery email (it shows in the outbox with its token), delete.
import { test, expect, expectAccessible } from './fixtures';

test('create a user, change the role, impersonate, recover, delete', async ({ signedIn: page, ws }) => {
  test.setTimeout(60_000);
  await page.goto(`/app/${ws.id}/users`);
  await page.getByRole('button', { name: 'New user' }).click();
  const d = page.getByRole('dialog', { name: 'New user' });
  await d.getByLabel('Email *').fill('zoe@example.com');
  await d.getByLabel('Password *').fill('short');
  await d.getByRole('button', { name: 'Create user' }).click();
  await expect(d.locator('.field-error')).toBeVisible();
  await expectAccessible(page, 'new user dialog with an error');
  await d.getByLabel('Password *').fill('zoe-password-1');
  await d.getByLabel('Name').fill('Zoe');
  await d.getByRole('button', { name: 'Create user' }).click();
  await expect(d).toBeHidden();
  const row = page.getByRole('row').filter({ hasText: 'zoe@example.com' });
  await expect(row).toBeVisible();
  await expectAccessible(page, 'users');

  await page.getByLabel('Search by email').fill('zoe');
  await expect(page.getByRole('row')).toHaveCount(2);

  await row.getByLabel('Role of zoe@example.com').selectOption('admin');
  await expect.poll(async () => (await ws.api('GET', '/users?filter[email]=zoe@example.com')).body.data[0].role).toBe('admin');

  await row.getByRole('button', { name: 'Impersonate zoe@example.com' }).click();
  const imp = page.getByRole('dialog', { name: 'Tokens of zoe@example.com' });
  const token = (await imp.locator('pre').textContent())!;
  const me = await fetch(`${ws.base}/auth/me`, { headers: { authorization: `Bearer ${token}` } });
  expect((await me.json()).email).toBe('zoe@example.com');
  await imp.getByRole('button', { name: 'Close' }).click();

  await row.getByRole('button', { name: 'Send a recovery email to zoe@example.com' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'in the outbox' })).toBeVisible();
  await page.getByRole('link', { name: 'Open the outbox' }).click();
  const mail = page.getByRole('article', { name: 'Email to zoe@example.com' });
  await expect(mail).toContainText('Reset your password');
  await expect(mail.getByRole('button', { name: 'Copy the recovery token for zoe@example.com' })).toBeVisible();
  await expectAccessible(page, 'outbox');

  await page.goto(`/app/${ws.id}/users`);
  await page.getByRole('button', { name: 'Delete zoe@example.com' }).click();
  await page.getByRole('dialog', { name: 'Delete zoe@example.com' }).getByRole('button', { name: 'Delete user' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'zoe@example.com' })).toBeHidden();
});

test("edit a user's name, email, role and password", async ({ signedIn: page, ws }) => {
  const created = await ws.api('POST', '/users', { email: 'kim@example.com', password: 'kim-password-1', name: 'Kim' });
  expect(created.status).toBe(201);
  await page.goto(`/app/${ws.id}/users`);
  await page.getByRole('button', { name: 'Edit kim@example.com' }).click();
  const d = page.getByRole('dialog', { name: 'Edit kim@example.com' });
  await d.getByLabel('New password').fill('short');
  await d.getByRole('button', { name: 'Save user' }).click();
  await expect(d.locator('.field-error')).toBeVisible();
  await expectAccessible(page, 'edit user dialog with an error');
  await d.getByLabel('Name').fill('Kim Lee');
  await d.getByLabel('Email *').fill('kim.lee@example.com');
  await d.getByLabel('Role').selectOption('admin');
  await d.getByLabel('New password').fill('kim-new-password-2');
  await d.getByRole('button', { name: 'Save user' }).click();
  await expect(d).toBeHidden();
  await expect(page.getByRole('row').filter({ hasText: 'kim.lee@example.com' })).toContainText('Kim Lee');
  const stored = (await ws.api('GET', `/users/${created.body._id}`)).body;
  expect(stored).toMatchObject({ email: 'kim.lee@example.com', name: 'Kim Lee', role: 'admin' });
  const login = await fetch(`${ws.base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'kim.lee@example.com', password: 'kim-new-password-2' }) });
  expect(login.status).toBe(200);
});
