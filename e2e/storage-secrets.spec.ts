// Storage (a tus upload paused, the page reloaded, the same file added again: it resumes and
// completes; preview, download, delete) and write-only secrets.
import { writeFileSync } from 'node:fs';
import { test, expect, expectAccessible } from './fixtures';

test('a tus upload resumes after a reload; preview, download and delete', async ({ signedIn: page, ws }, testInfo) => {
  test.setTimeout(90_000);
  const big = testInfo.outputPath('big.bin');
  writeFileSync(big, Buffer.alloc(24 * 1024 * 1024, 7));
  const note = testInfo.outputPath('note.json');
  writeFileSync(note, JSON.stringify({ hello: 'world' }));
  await page.goto(`/app/${ws.id}/storage`);
  await expectAccessible(page, 'storage');
  // Slow uploads down so that the pause lands mid-way.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 3 * 1024 * 1024 });
  await page.getByLabel('Drop files here, or choose them').setInputFiles(big);
  const item = page.getByRole('listitem', { name: 'Upload of big.bin' });
  await expect.poll(async () => Number(await item.getByRole('progressbar').getAttribute('value')), { timeout: 20_000 }).toBeGreaterThan(0);
  await item.getByRole('button', { name: 'Pause' }).click();
  await expect(item).toContainText('paused');

  await page.reload();
  await expect(page.locator('.notice').filter({ hasText: 'Unfinished uploads from earlier' })).toContainText('big.bin');
  await cdp.detach().catch(() => undefined);
  await page.getByLabel('Drop files here, or choose them').setInputFiles(big);
  const again = page.getByRole('listitem', { name: 'Upload of big.bin' });
  await expect(again).toContainText('(resumed)');
  await expect(again).toContainText('done', { timeout: 40_000 });
  const files = (await ws.api('GET', '/storage')).body;
  expect(files.meta.total).toBe(1);
  expect(files.data[0]).toMatchObject({ name: 'big.bin', size: 24 * 1024 * 1024 });

  await page.getByLabel('Drop files here, or choose them').setInputFiles(note);
  await expect(page.getByRole('button', { name: 'Preview note.json' })).toBeVisible();
  await page.getByRole('button', { name: 'Preview note.json' }).click();
  await expect(page.getByLabel('Contents of note.json')).toContainText('"hello": "world"');
  await page.getByRole('button', { name: 'Close' }).click();
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download note.json' }).click();
  expect((await download).suggestedFilename()).toBe('note.json');

  await page.getByRole('checkbox', { name: 'Select all files of this page' }).check();
  await page.getByRole('button', { name: 'Delete 2 selected' }).click();
  await expect(page.getByText('No file.')).toBeVisible();
  expect((await ws.api('GET', '/storage?limit=0')).body.meta.total).toBe(0);
});

test('secrets are write-only: created, replaced, deleted, never shown', async ({ signedIn: page, ws }) => {
  const value = 'sk-live-very-secret-123';
  const seen: string[] = [];
  page.on('response', async (r) => { if (r.url().includes('/credentials')) seen.push(await r.text().catch(() => '')); });
  await page.goto(`/app/${ws.id}/credentials`);
  await page.getByRole('button', { name: 'New secret' }).click();
  const d = page.getByRole('dialog', { name: 'New secret' });
  await d.getByLabel('Name *').fill('STRIPE_KEY');
  await d.getByLabel('Value *').fill(value);
  await expectAccessible(page, 'new secret dialog');
  await d.getByRole('button', { name: 'Create secret' }).click();
  await expect(page.getByRole('cell', { name: 'STRIPE_KEY', exact: true })).toBeVisible();
  await expect(page.locator('body')).not.toContainText(value);
  await page.getByRole('button', { name: 'Replace STRIPE_KEY' }).click();
  const r = page.getByRole('dialog', { name: 'Replace STRIPE_KEY' });
  await expect(r.getByLabel('New value')).toHaveValue('');
  await r.getByLabel('New value').fill('sk-live-other-456');
  await r.getByRole('button', { name: 'Save' }).click();
  await expect(r).toBeHidden();
  expect(seen.join('\n')).not.toContain(value);
  expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }))).not.toContain('sk-live');
  await expectAccessible(page, 'secrets');
  await page.getByRole('button', { name: 'Delete STRIPE_KEY' }).click();
  await page.getByRole('dialog', { name: 'Delete STRIPE_KEY' }).getByRole('button', { name: 'Delete secret' }).click();
  await expect(page.getByText('No secret yet.')).toBeVisible();
  expect((await ws.api('GET', '/credentials?limit=0')).body.meta.total).toBe(0);
});
