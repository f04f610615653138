// Workspaces: create, snapshots (take, list, restore), export, import (progress; a refused dump
// shows its JSON path), reset, delete typing the id.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { test, expect, expectAccessible, consoleApi, Workspace } from './fixtures';

test('create a workspace, then delete it by typing its id', async ({ signedIn: page }) => {
  const id = `c${randomBytes(4).toString('hex')}`;
  await expectAccessible(page, 'workspaces');
  await page.getByRole('button', { name: 'New workspace' }).click();
  const d = page.getByRole('dialog', { name: 'New workspace' });
  await d.getByLabel('Id *').fill(id);
  await d.getByLabel('Admin email').fill('owner@example.com');
  await expectAccessible(page, 'new workspace dialog');
  await d.getByRole('button', { name: 'Create workspace' }).click();
  await expect(d.getByText('Generated admin password')).toBeVisible();
  const password = (await d.locator('.notice code').textContent())!;
  const login = await fetch(`${process.env.HOMEBASE_E2E_URL}/api/app/${id}/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@example.com', password }),
  });
  expect(login.status).toBe(200);
  await d.getByRole('button', { name: 'Close' }).first().click();
  await page.getByRole('button', { name: `Delete ${id}` }).click();
  const del = page.getByRole('dialog', { name: `Delete ${id}` });
  await del.getByLabel(/to confirm/).fill('nope');
  await expect(del.getByRole('button', { name: 'Delete workspace' })).toBeDisabled();
  await del.getByLabel(/to confirm/).fill(id);
  await del.getByRole('button', { name: 'Delete workspace' }).click();
  await expect(page.getByRole('link', { name: id, exact: true })).toBeHidden();
  expect((await consoleApi<{ data: Array<{ _id: string }> }>('GET', '/workspaces?limit=100')).body.data.map((w) => w._id)).not.toContain(id);
});

test("a workspace created with the admin email left empty gets the server's default admin", async ({ signedIn: page }) => {
  const id = `e${randomBytes(4).toString('hex')}`;
  await page.getByRole('button', { name: 'New workspace' }).click();
  const d = page.getByRole('dialog', { name: 'New workspace' });
  await d.getByLabel('Id *').fill(id);
  await d.getByLabel('Admin password').fill('owner-password-1');
  await d.getByRole('button', { name: 'Create workspace' }).click();
  // The e2e server's default admin email is admin@example.com.
  await expect(d.getByText(`Workspace ${id} is ready. Its admin is admin@example.com.`)).toBeVisible();
  await d.getByRole('button', { name: 'Close' }).first().click();
  expect((await consoleApi('DELETE', `/workspaces/${id}`)).status).toBe(204);
});

test('snapshots, reset, export and import of a workspace', async ({ signedIn: page, ws }, testInfo) => {
  test.setTimeout(60_000);
  await ws.api('POST', '/database', { _id: 'notes', setting: { read: 'private', write: 'private', update: 'private' } });
  await ws.api('POST', '/database/notes', { text: 'one' });
  await page.reload();
  // Snapshot, change, restore.
  await page.getByRole('button', { name: `Snapshots of ${ws.id}` }).click();
  const snaps = page.getByRole('dialog', { name: `Snapshots of ${ws.id}` });
  await snaps.getByLabel('Snapshot name').fill('start');
  await snaps.getByRole('button', { name: 'Take snapshot' }).click();
  await expect(snaps.getByRole('cell', { name: 'start', exact: true })).toBeVisible();
  await ws.api('POST', '/database/notes', { text: 'two' });
  await snaps.getByRole('button', { name: 'Restore start' }).click();
  await expect(snaps.getByRole('status')).toContainText('Restored start');
  expect((await ws.api('GET', '/database/notes?limit=0')).body.meta.total).toBe(1);
  await expectAccessible(page, 'snapshots dialog');
  await snaps.getByRole('button', { name: 'Close' }).click();

  // Export downloads the dump.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: `Export ${ws.id}` }).click();
  const file = testInfo.outputPath('dump.json');
  await (await download).saveAs(file);
  const dump = JSON.parse(readFileSync(file, 'utf8'));
  expect(dump.records.notes).toHaveLength(1);

  // Reset keeping the schema.
  await page.getByRole('button', { name: `Reset ${ws.id}` }).click();
  await page.getByRole('dialog', { name: `Reset ${ws.id}` }).getByRole('button', { name: 'Reset workspace' }).click();
  await expect(page.getByRole('dialog', { name: `Reset ${ws.id}` })).toBeHidden();
  expect((await ws.api('GET', '/database/notes?limit=0')).body.meta.total).toBe(0);

  // Import: a bad dump is refused at its JSON path; the good one comes back.
  const other = new Workspace(ws.id);
  const bad = structuredClone(dump);
  bad.records.notes[0]._id = 'fields';
  const badFile = testInfo.outputPath('bad.json');
  writeFileSync(badFile, JSON.stringify(bad));
  await page.getByRole('button', { name: `Import into ${ws.id}` }).click();
  const imp = page.getByRole('dialog', { name: `Import into ${ws.id}` });
  await imp.getByLabel('Dump file (JSON)').setInputFiles(badFile);
  await imp.getByRole('button', { name: 'Import' }).click();
  await expect(imp.getByRole('alert')).toContainText('records.notes[0]._id');
  await imp.getByLabel('Dump file (JSON)').setInputFiles(file);
  await imp.getByRole('button', { name: 'Import' }).click();
  await expect(imp.getByRole('status')).toContainText('Imported');
  await expect(imp.locator('progress')).toHaveAttribute('value', '1');
  expect((await other.api('GET', '/database/notes?limit=0')).body.meta.total).toBe(1);
});
