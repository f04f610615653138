// Sign-in (link, pasted token, refused token), the shell's health and navigation, themes.
import { test, expect, expectAccessible, TOKEN, SERVER } from './fixtures';

test('signs in from the console link, strips the token from the address bar and stays signed in on reload', async ({ page }) => {
  await page.goto(`/app/demo/database#token=${TOKEN()}`);
  await expect(page.getByRole('heading', { name: 'Database' })).toBeVisible();
  expect(page.url()).not.toContain('token');
  expect(new URL(page.url()).pathname).toBe('/app/demo/database');
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Database' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: /ok · v\d/ })).toBeVisible();
});

test('without a token asks for one, shows no data, and accepts a pasted token', async ({ page }) => {
  const apiCalls: string[] = [];
  page.on('request', (r) => { if (r.url().includes('/api/workspaces')) apiCalls.push(r.url()); });
  await page.goto('/app/demo');
  await expect(page.getByRole('heading', { name: 'Sign in to the Homebase console' })).toBeVisible();
  // It names this server's own address (not always port 4700).
  await expect(page.getByText(`${SERVER()}/#token=…`)).toBeVisible();
  expect(apiCalls).toEqual([]);
  await expectAccessible(page, 'sign-in');
  await page.getByLabel('Console token').fill('wrong-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('refused');
  await page.getByLabel('Console token').fill(TOKEN());
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Workspace demo' })).toBeVisible();
});

test('the desktop preload hands the token over before the fragment or storage', async ({ page }) => {
  await page.addInitScript((token) => {
    (window as unknown as { homebase: unknown }).homebase = { getConsoleToken: async () => token };
  }, TOKEN());
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Workspaces' })).toBeVisible();
});

test('navigation reaches every page of the console, themes switch, and each page passes axe', async ({ signedIn: page, ws }) => {
  test.setTimeout(90_000);
  await page.goto(`/app/${ws.id}`);
  const nav = page.getByRole('navigation', { name: 'Workspace pages' });
  const pages: Array<[string, RegExp]> = [
    ['Overview', new RegExp(`Workspace ${ws.id}`)], ['Database', /^Database$/], ['Users', /^Users$/], ['Storage', /^Storage$/],
    ['Chats', /^Chats$/], ['Webhooks', /^Webhooks$/], ['Scenarios', /^Scenarios$/], ['Secrets', /^Secrets$/],
    ['Outbox', /^Outbox$/], ['Request log', /^Request log$/],
  ];
  for (const [link, heading] of pages) {
    await nav.getByRole('link', { name: new RegExp(`^${link}`) }).click();
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    await expectAccessible(page, link);
  }
  for (const theme of ['dark', 'light'] as const) {
    await page.getByLabel('Theme').selectOption(theme);
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await expectAccessible(page, `request log, ${theme} theme`);
  }
  await page.getByLabel('Theme').selectOption('system');
});

test('an unknown console address says so', async ({ signedIn: page }) => {
  await page.goto('/nowhere/at/all');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
});

test('a console link opened in a new tab stays signed in (the open tab hands its token over)', async ({ signedIn: page, ws }) => {
  await page.goto(`/app/${ws.id}`);
  await expect(page.getByRole('heading', { name: `Workspace ${ws.id}` })).toBeVisible();
  // A new tab of the same browser has no sessionStorage of its own.
  const tab = await page.context().newPage();
  await tab.goto(`/app/${ws.id}/api/`);
  await expect(tab.getByRole('heading', { level: 1, name: 'API reference' })).toBeVisible();
  await expect(tab.getByRole('heading', { name: 'Sign in to the Homebase console' })).toHaveCount(0);
  await tab.close();
});
