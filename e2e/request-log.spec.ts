// The request log: a request made by an API client appears in the open page by push (no reload,
// no list refetch), the filters and the detail panel, pause and resume of the tail.
import { test, expect, expectAccessible, consoleApi, Workspace } from './fixtures';

test('requests made by an API client appear live, filtered, with their detail', async ({ signedIn: page, ws }) => {
  await page.goto(`/app/${ws.id}/requests`);
  await expect(page.getByRole('status', { name: 'Live tail' })).toHaveText('Live');
  // From here on, any refetch of the list would be polling: count them.
  const listCalls: string[] = [];
  page.on('request', (r) => { if (/\/api\/workspaces\/[^/]+\/requests\?/.test(r.url())) listCalls.push(r.url()); });
  await page.evaluate(() => { (window as unknown as { marker: number }).marker = 1; });

  await ws.api('GET', '/database/missing');
  await expect(page.getByRole('row').filter({ hasText: '/database/missing' })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 'the page was not reloaded').toBe(1);
  expect(listCalls, 'the row came by push, not by a refetch').toEqual([]);

  await page.getByLabel('Status').selectOption('2xx');
  await expect(page.getByRole('row').filter({ hasText: '/database/missing' })).toBeHidden();
  await expect(page.getByRole('status', { name: 'Live tail' })).toHaveText('Live');
  // A 4xx does not join a 2xx view; a 2xx does.
  await ws.api('GET', '/database/missing-too');
  await ws.api('GET', '/database?live=1');
  await expect(page.getByRole('row').filter({ hasText: '/database?live=1' })).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: '/database/missing-too' })).toBeHidden();
  await page.getByLabel('Status').selectOption('4xx');
  await expect(page.getByRole('row').filter({ hasText: '/database/missing' })).toHaveCount(2);

  await page.getByRole('button', { name: /^Details of GET .*\/database\/missing$/ }).click();
  const detail = page.getByRole('dialog', { name: 'Request' });
  await expect(detail).toContainText('404');
  await expect(detail.getByRole('row', { name: /authorization/ })).toContainText('Bearer ***');
  await expectAccessible(page, 'request detail');
  await detail.getByRole('button', { name: 'Close' }).click();
  await expectAccessible(page, 'request log');

  // Paused, nothing new comes in; resumed, the list catches up.
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByRole('status', { name: 'Live tail' })).toHaveText('Paused');
  await ws.api('GET', '/database/while-paused');
  await page.waitForTimeout(1000);
  await expect(page.getByRole('row').filter({ hasText: '/database/while-paused' })).toBeHidden();
  await page.getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByRole('row').filter({ hasText: '/database/while-paused' })).toBeVisible();
  await expect(page.getByRole('status', { name: 'Live tail' })).toHaveText('Live');
});

test('the tail reconnects by itself after the server ends it', async ({ signedIn: page, ws }) => {
  test.setTimeout(60_000);
  await page.goto(`/app/${ws.id}/requests`);
  const state = page.getByRole('status', { name: 'Live tail' });
  await expect(state).toHaveText('Live');
  // Deleting the workspace ends its tail; while it is gone the stream is refused (404) and
  // retried with a back-off; once it exists again the tail is live again.
  expect((await consoleApi('DELETE', `/workspaces/${ws.id}`)).status).toBe(204);
  await expect(state).toHaveText('Reconnecting…');
  expect((await consoleApi('POST', '/workspaces', { _id: ws.id, admin: { email: 'admin@example.com', password: 'admin-password-1' } })).status).toBe(201);
  await expect(state).toHaveText('Live', { timeout: 30_000 });
  await new Workspace(ws.id).api('GET', '/database/after-reconnect');
  await expect(page.getByRole('row').filter({ hasText: '/database/after-reconnect' })).toBeVisible();
});

test("the console's own requests are hidden unless asked; bodies are shown with secrets masked", async ({ signedIn: page, ws }) => {
  await ws.api('POST', '/database', { _id: 'notes', setting: { read: 'private', write: 'private', update: 'private' } });
  // The console's own traffic: its records page.
  await page.goto(`/app/${ws.id}/database/notes`);
  await expect(page.getByText('No records yet.')).toBeVisible();
  await page.goto(`/app/${ws.id}/requests`);
  await expect(page.getByRole('status', { name: 'Live tail' })).toHaveText('Live');
  const login = await fetch(`${ws.base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password: 'admin-password-1' }) });
  expect(login.status).toBe(200);
  const token = (await login.json()).token as string;
  const row = page.getByRole('row').filter({ hasText: '/auth/login' });
  await expect(row).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: '/database/notes' })).toHaveCount(0);

  await page.getByRole('checkbox', { name: "Show the console's requests" }).check();
  await expect(page.getByRole('row').filter({ hasText: '/database/notes' }).first()).toContainText('console');
  await page.getByRole('checkbox', { name: "Show the console's requests" }).uncheck();
  await expect(page.getByRole('row').filter({ hasText: '/database/notes' })).toHaveCount(0);

  await row.getByRole('button', { name: /^Details of POST/ }).click();
  const detail = page.getByRole('dialog', { name: 'Request' });
  await expect(detail).toContainText('"password": "***"');
  await expect(detail).toContainText('"token": "***"');
  await expect(detail).not.toContainText('admin-password-1');
  await expect(detail).not.toContainText(token);
  await expectAccessible(page, 'request detail with bodies');
});
