// OAuth clients: a confidential client made in the console, its secret shown once (copy button,
// "you will not see it again", gone after a reload and never in browser storage), proved from the
// test with a client_credentials token request, then deleted after a confirmation: the same
// request is refused (401 invalid_client). A bad redirect URI shows the server's error at its field.
import { test, expect, expectAccessible } from './fixtures';

const tokenRequest = (origin: string, appId: string, id: string, secret: string) => fetch(`${origin}/api/v2/app/${appId}/oauth/token`, {
  method: 'POST',
  headers: { authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'database:read' }).toString(),
});

test('a confidential client is made, its secret shown once, works for client credentials, and is refused once deleted', async ({ signedIn: page, ws }) => {
  const origin = new URL(ws.base).origin;
  await page.goto(`/app/${ws.id}`);
  await page.getByRole('navigation', { name: 'Workspace pages' }).getByRole('link', { name: /^OAuth clients/ }).click();
  await expect(page).toHaveURL(new RegExp(`/app/${ws.id}/oauth-clients$`));
  await expect(page.getByText('No OAuth client yet.')).toBeVisible();
  // The metadata URL on the page is the server's RFC 8414 document.
  const metadataUrl = (await page.getByLabel('Metadata URL', { exact: true }).textContent())!.trim();
  expect(metadataUrl).toBe(`${origin}/api/v2/app/${ws.id}/oauth/.well-known/oauth-authorization-server`);
  await expect(page.getByRole('button', { name: 'Copy the metadata URL' })).toBeVisible();
  const metadata = await fetch(metadataUrl);
  expect(metadata.status).toBe(200);
  expect((await metadata.json()).grant_types_supported).toContain('client_credentials');
  await expectAccessible(page, 'OAuth clients, empty');

  await page.getByRole('button', { name: 'New OAuth client' }).click();
  const form = page.getByRole('dialog', { name: 'New OAuth client' });
  await form.getByLabel('Name *').fill('billing-worker');
  await form.getByLabel('Redirect URIs').fill('https://billing.example.com/callback\nhttp://localhost:5173/cb');
  await expect(form.getByRole('checkbox', { name: /:/ })).toHaveCount(9);
  await form.getByRole('checkbox', { name: /database:read/ }).check();
  await form.getByRole('checkbox', { name: /users:read/ }).check();
  await expect(form.getByRole('checkbox', { name: /Confidential/ })).toBeChecked();
  await expectAccessible(page, 'new OAuth client dialog');
  await form.getByRole('button', { name: 'Create client' }).click();

  const shown = page.getByRole('dialog', { name: 'Your new client secret' });
  await expect(shown).toContainText('you will not see it again');
  const secret = (await shown.getByLabel('Secret of billing-worker').textContent())!.trim();
  expect(secret).toMatch(/^hbs_[A-Za-z0-9_-]+$/);
  await expect(shown.getByRole('button', { name: 'Copy the client secret' })).toBeVisible();
  await expectAccessible(page, 'client secret shown');
  await shown.getByRole('button', { name: 'I have copied it' }).click();
  await expect(shown).toBeHidden();

  const listed = await fetch(`${origin}/api/v2/app/${ws.id}/oauth/clients`, { headers: { authorization: `Bearer ${await ws.adminToken()}` } });
  const clients = (await listed.json()).data as Array<{ _id: string }>;
  expect(clients).toMatchObject([{ name: 'billing-worker', confidential: true, scopes: ['database:read', 'users:read'], redirectUris: ['https://billing.example.com/callback', 'http://localhost:5173/cb'] }]);
  const clientId = clients[0]!._id;

  // Listed without the secret; the secret is on the page no more, nor in the browser's storage.
  const row = page.getByRole('row').filter({ hasText: 'billing-worker' });
  await expect(row).toContainText(clientId);
  await expect(row).toContainText('confidential');
  await expect(row).toContainText('https://billing.example.com/callback');
  await expect(row).toContainText('http://localhost:5173/cb');
  await expect(row).toContainText('database:read');
  await expect(row).toContainText('users:read');
  await expect(page.locator('body')).not.toContainText(secret);
  await page.reload();
  await expect(page.getByRole('row').filter({ hasText: 'billing-worker' })).toBeVisible();
  await expect(page.locator('body')).not.toContainText(secret);
  expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }))).not.toContain(secret);
  await expectAccessible(page, 'OAuth clients, one client');

  // The secret works: a client_credentials token, which reads v2 records.
  const granted = await tokenRequest(origin, ws.id, clientId, secret);
  expect(granted.status).toBe(200);
  const token = await granted.json();
  expect(token).toMatchObject({ token_type: 'Bearer', scope: 'database:read' });
  expect(typeof token.access_token).toBe('string');

  await page.getByRole('button', { name: 'Delete billing-worker' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete billing-worker' });
  await expect(confirm).toContainText('ends all its grants');
  await expectAccessible(page, 'delete confirmation');
  await confirm.getByRole('button', { name: 'Delete client' }).click();
  await expect(page.getByText('No OAuth client yet.')).toBeVisible();
  const refused = await tokenRequest(origin, ws.id, clientId, secret);
  expect(refused.status).toBe(401);
  expect((await refused.json()).error).toBe('invalid_client');
});

test('a bad redirect URI shows the server\'s error at the field', async ({ signedIn: page, ws }) => {
  await page.goto(`/app/${ws.id}/oauth-clients`);
  await page.getByRole('button', { name: 'New OAuth client' }).click();
  const form = page.getByRole('dialog', { name: 'New OAuth client' });
  await form.getByLabel('Name *').fill('spa');
  await form.getByLabel('Redirect URIs').fill('http://example.com/cb#frag');
  await form.getByRole('checkbox', { name: /database:read/ }).check();
  await form.getByRole('checkbox', { name: /Confidential/ }).uncheck();
  await form.getByRole('button', { name: 'Create client' }).click();
  await expect(form.getByLabel('Redirect URIs')).toHaveAttribute('aria-invalid', 'true');
  await expect(form).toContainText('an absolute URI without a fragment (http only for localhost)');
  await expect(page.getByRole('dialog', { name: 'Your new client secret' })).toBeHidden();
  await expectAccessible(page, 'redirect URI error');
  const listed = await fetch(`${new URL(ws.base).origin}/api/v2/app/${ws.id}/oauth/clients`, { headers: { authorization: `Bearer ${await ws.adminToken()}` } });
  expect((await listed.json()).data).toEqual([]);
});
