// Database: collections, fields, records (form, field errors, JSON view, in-place edit),
// filter and sort in the URL, views, indexes, bulk delete and live records.
import { test, expect, expectAccessible } from './fixtures';

test('create a collection, add fields, add and edit a record and see a field error', async ({ signedIn: page, ws }) => {
  test.setTimeout(60_000);
  await page.goto(`/app/${ws.id}/database`);
  await expectAccessible(page, 'collections (empty)');
  await page.getByRole('button', { name: 'New collection' }).click();
  const dialog = page.getByRole('dialog', { name: 'New collection' });
  await dialog.getByLabel('Id *').fill('people');
  await dialog.getByLabel('Name').fill('People');
  await dialog.getByRole('radio', { name: /only-user — Each signed-in user lists and reads only/ }).check();
  await expectAccessible(page, 'new collection dialog');
  await dialog.getByRole('button', { name: 'Create collection' }).click();
  await expect(page).toHaveURL(new RegExp(`/app/${ws.id}/database/people\\?tab=fields$`));
  expect((await ws.api('GET', '/database?filter[_id]=people')).body.data[0].setting.read).toBe('only-user');

  const addField = async (id: string, type: string, extra?: (d: import('@playwright/test').Locator) => Promise<void>) => {
    await page.getByRole('button', { name: 'Add field' }).click();
    const d = page.getByRole('dialog', { name: 'Add field' });
    await d.getByLabel('Id *').fill(id);
    await d.getByLabel('Type').selectOption(type);
    if (extra) await extra(d);
    await d.getByRole('button', { name: 'Add field' }).click();
    await expect(d).toBeHidden();
    await expect(page.getByRole('row').filter({ has: page.getByRole('cell', { name: id, exact: true }) }).first()).toBeVisible();
  };
  await addField('title', 'string', (d) => d.getByLabel('Required').check());
  await addField('age', 'integer', (d) => d.getByLabel('Minimum').fill('0'));
  await addField('role', 'enum', (d) => d.getByLabel('Allowed values *').fill('admin, user'));
  await addField('active', 'boolean');
  await addField('born', 'date');
  await addField('meta', 'json');
  await expectAccessible(page, 'fields tab');
  const fields = (await ws.api('GET', '/database/people/fields')).body.data;
  expect(fields.map((f: { _id: string; type: string }) => `${f._id}:${f.type}`)).toEqual(['title:string', 'age:integer', 'role:enum', 'active:boolean', 'born:date', 'meta:json']);
  expect(fields[2].options.values).toEqual(['admin', 'user']);

  await page.getByRole('tab', { name: 'Records' }).click();
  await page.getByRole('button', { name: 'New record' }).click();
  const form = page.getByRole('dialog', { name: 'New record in people' });
  await form.getByLabel('title *').fill('Ada');
  await form.getByLabel('age').fill('-3');
  await form.getByLabel('role').selectOption('admin');
  await form.getByLabel('active').selectOption('true');
  await form.getByLabel('born').fill('1990-05-01T10:00');
  await expectAccessible(page, 'record form');
  await form.getByRole('button', { name: 'Create record' }).click();
  // The API's validation error, at its field.
  await expect(form.locator('[data-field="age"] .field-error')).toBeVisible();
  await expect(form.getByRole('alert')).toContainText('VALIDATION_ERROR');
  await form.getByLabel('age').fill('36');
  await form.getByRole('button', { name: 'Create record' }).click();
  await expect(form).toBeHidden();
  const row = page.getByRole('row').filter({ hasText: 'Ada' });
  await expect(row).toBeVisible();
  const stored = (await ws.api('GET', '/database/people')).body.data[0];
  expect(stored).toMatchObject({ title: 'Ada', age: 36, role: 'admin', active: true });
  expect(new Date(stored.born).getUTCFullYear()).toBe(1990);

  // Edit in place, then the JSON view.
  await row.getByRole('button', { name: /^Edit record/ }).click();
  const edit = page.getByRole('dialog', { name: /^Edit record/ });
  await edit.getByLabel('title *').fill('Ada Lovelace');
  await edit.getByRole('button', { name: 'Save record' }).click();
  await expect(edit).toBeHidden();
  await expect(page.getByRole('row').filter({ hasText: 'Ada Lovelace' })).toBeVisible();
  expect((await ws.api('GET', `/database/people/${stored._id}`)).body.title).toBe('Ada Lovelace');
  await page.getByRole('button', { name: `JSON of record ${stored._id}` }).click();
  const panel = page.getByRole('dialog', { name: `Record ${stored._id}` });
  await expect(panel.getByRole('textbox', { name: 'Record JSON' })).toContainText('"title": "Ada Lovelace"');
  await expectAccessible(page, 'record JSON panel');
});

test('filter as typed text and sort, kept in the URL; save a view; bulk delete; live records', async ({ signedIn: page, ws }) => {
  test.setTimeout(60_000);
  await ws.api('POST', '/database', { _id: 'people', setting: { read: 'private', write: 'private', update: 'private' } });
  await ws.api('POST', '/database/people/fields', { _id: 'age', type: 'integer' });
  for (const [name, age, role] of [['Ann', 25, 'user'], ['Bob', 31, 'admin'], ['Cid', 47, 'admin'], ['Dee', 52, 'user'], ['Eve', 38, 'admin']] as const) {
    expect((await ws.api('POST', '/database/people', { name, age, role })).status).toBe(201);
  }
  await page.goto(`/app/${ws.id}/database/people`);
  await expect(page.getByRole('row')).toHaveCount(6);
  await expectAccessible(page, 'records grid');

  await page.getByLabel('Filter', { exact: true }).fill('age >= 30 and role = admin');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/filter%5Bage%5D%5B%24gte%5D=30/);
  await expect(page.getByRole('row')).toHaveCount(4);
  await page.getByRole('button', { name: /^Sort by age/ }).click();
  await page.getByRole('button', { name: /^Sort by age, now ascending/ }).click();
  await expect(page).toHaveURL(/sort=-age/);
  await expect(page.locator('.grid-row').first()).toContainText('Cid');
  // A link reproduces the grid.
  await page.reload();
  await expect(page.getByLabel('Filter', { exact: true })).toHaveValue('age >= 30 and role = admin');
  await expect(page.locator('.grid-row').first()).toContainText('Cid');
  await expect(page.getByRole('row')).toHaveCount(4);
  // A typo is explained before anything is sent.
  await page.getByLabel('Filter', { exact: true }).fill('age ~ 3');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByRole('alert')).toContainText('Unknown operator');

  await page.getByRole('button', { name: 'Save as view' }).click();
  const viewDialog = page.getByRole('dialog', { name: 'Save as view' });
  await viewDialog.getByLabel('View name *').fill('Senior admins');
  await viewDialog.getByRole('button', { name: 'Save view' }).click();
  await expect(page).toHaveURL(/view=/);
  await expect(page.getByLabel('View', { exact: true })).toHaveValue(/.+/);
  await expect(page.getByRole('row')).toHaveCount(4);
  const views = (await ws.api('GET', '/database/people/views')).body.data;
  expect(views).toMatchObject([{ name: 'Senior admins', filter: { age: { $gte: '30' }, role: { $eq: 'admin' } }, sort: '-age' }]);

  // Live: a record created elsewhere appears without a reload.
  await ws.api('POST', '/database/people', { name: 'Fay', age: 60, role: 'admin' });
  await expect(page.getByRole('row').filter({ hasText: 'Fay' })).toBeVisible();

  // Bulk delete.
  await page.getByRole('checkbox', { name: 'Select all rows of this page' }).check();
  await page.getByRole('button', { name: 'Delete 4 selected' }).click();
  await page.getByRole('dialog', { name: 'Delete 4 records' }).getByRole('button', { name: 'Delete records' }).click();
  await expect(page.getByText('No record matches.')).toBeVisible();
  expect((await ws.api('GET', '/database/people?limit=0')).body.meta.total).toBe(2);
});

test('indexes: create and delete; a unique violation is explained', async ({ signedIn: page, ws }) => {
  await ws.api('POST', '/database', { _id: 'tags', setting: { read: 'private', write: 'private', update: 'private' } });
  await ws.api('POST', '/database/tags', { label: 'red' });
  await ws.api('POST', '/database/tags', { label: 'red' });
  await page.goto(`/app/${ws.id}/database/tags?tab=indexes`);
  await page.getByLabel('Fields').fill('label');
  await page.getByLabel('Unique').check();
  await page.getByRole('button', { name: 'Create index' }).click();
  await expect(page.getByRole('alert')).toContainText('Existing records break this unique index');
  await expectAccessible(page, 'indexes tab with an error');
  await page.getByLabel('Unique').uncheck();
  await page.getByRole('button', { name: 'Create index' }).click();
  await expect(page.getByRole('cell', { name: 'label', exact: true })).toBeVisible();
  const [ix] = (await ws.api('GET', '/database/tags/indexes')).body.data;
  await page.getByRole('button', { name: `Delete index ${ix._id}` }).click();
  await expect(page.getByText('No index yet.')).toBeVisible();
});

test('collections: edit name and access, delete with confirmation', async ({ signedIn: page, ws }) => {
  await ws.api('POST', '/database', { _id: 'notes', setting: { read: 'private', write: 'private', update: 'private' } });
  await page.goto(`/app/${ws.id}/database`);
  await page.getByRole('button', { name: 'Edit notes' }).click();
  const d = page.getByRole('dialog', { name: 'Edit notes' });
  await d.getByLabel('Name').fill('My notes');
  await d.getByRole('radio', { name: /^public — Anyone, even without a token, can create/ }).check();
  await d.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('cell', { name: 'My notes' })).toBeVisible();
  expect((await ws.api('GET', '/database?filter[_id]=notes')).body.data[0]).toMatchObject({ name: 'My notes', setting: { write: 'public' } });
  await page.getByRole('button', { name: 'Delete notes' }).click();
  const del = page.getByRole('dialog', { name: 'Delete notes' });
  await expect(del.getByRole('button', { name: 'Delete collection' })).toBeDisabled();
  await del.getByLabel(/Type notes to confirm/).fill('notes');
  await del.getByRole('button', { name: 'Delete collection' }).click();
  await expect(page.getByText('No collection yet.')).toBeVisible();
});
