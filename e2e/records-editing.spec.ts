// The records grid as an editor: a cell edited in place (Enter saves, Escape cancels, the
// field's rule checked before sending, the server's 422 shown after), field names as headers,
// labels that link to what references, users and files point to, dates in local time, columns
// resized and hidden per collection, sticky columns; a file uploaded from the record form;
// "No records yet" on an empty collection; views with readable ids.
import { test, expect, expectAccessible, type Workspace } from './fixtures';

async function uploadFile(ws: Workspace, name: string, text: string): Promise<{ _id: string; name: string }> {
  const body = new FormData();
  body.append('file', new Blob([text], { type: 'text/plain' }), name);
  const res = await fetch(`${ws.base}/storage/upload`, { method: 'POST', headers: { authorization: `Bearer ${await ws.adminToken()}` }, body });
  expect(res.status).toBe(201);
  return res.json() as Promise<{ _id: string; name: string }>;
}

async function library(ws: Workspace) {
  const setting = { read: 'private', write: 'private', update: 'private' };
  expect((await ws.api('POST', '/database', { _id: 'authors', setting, fields: [{ _id: 'name', type: 'string' }] })).status).toBe(201);
  expect((await ws.api('POST', '/database', {
    _id: 'books', setting, fields: [
      { _id: 'title', name: 'Title', type: 'string', required: true },
      { _id: 'pages', name: 'Page count', type: 'integer', options: { min: 1, max: 5000 } },
      { _id: 'author', name: 'Author', type: 'reference', options: { collection: 'authors' } },
      { _id: 'cover', name: 'Cover', type: 'file' },
      { _id: 'published', name: 'Published', type: 'date' },
    ],
  })).status).toBe(201);
  const author = (await ws.api('POST', '/database/authors', { name: 'Ursula K. Le Guin' })).body;
  const cover = await uploadFile(ws, 'earthsea-cover.txt', 'a cover');
  const book = (await ws.api('POST', '/database/books', { title: 'A Wizard of Earthsea', pages: 183, author: author._id, cover: cover._id, published: '1968-11-01T12:00:00.000Z' })).body;
  expect(book._id).toBeTruthy();
  return { author, cover, book };
}

test('edit a cell in place; labels link to what ids point to; dates in local time; field names as headers', async ({ signedIn: page, ws }) => {
  test.setTimeout(60_000);
  const { author, cover, book } = await library(ws);
  await page.goto(`/app/${ws.id}/database/books`);
  const row = page.locator(`[data-record-id="${book._id}"]`);
  await expect(row).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sort by Page count' })).toBeVisible();

  // Labels, one batched request per target.
  const authorLink = row.getByRole('link', { name: 'Ursula K. Le Guin' });
  await expect(authorLink).toHaveAttribute('href', `/app/${ws.id}/database/authors?filter%5B_id%5D=${author._id}`);
  await expect(row.getByRole('link', { name: 'earthsea-cover.txt' })).toHaveAttribute('href', /\/storage\?search=earthsea-cover\.txt/);
  await expect(row.getByRole('link', { name: /Admin|admin@example\.com/ })).toBeVisible(); // _owner
  void cover;

  // Dates: local time, ISO on hover.
  const published = row.locator('[data-column="published"] button');
  await expect(published).toHaveAttribute('title', '1968-11-01T12:00:00.000Z');
  await expect(published).not.toContainText('1968-11-01T');
  await expect(published).toContainText('1968');

  // The rule is checked before sending: nothing is saved.
  await row.getByRole('button', { name: /^Page count of .*Edit$/ }).click();
  const input = page.getByRole('textbox', { name: `Edit Page count of ${book._id}` });
  await input.fill('9999');
  await input.press('Enter');
  await expect(page.getByRole('alert')).toContainText("'Page count' must be an integer from 1 to 5000");
  await expect(input).toHaveAttribute('aria-invalid', 'true');
  await expectAccessible(page, 'records grid with a cell being edited');
  expect((await ws.api('GET', `/database/books/${book._id}`)).body.pages).toBe(183);
  // Escape cancels.
  await input.press('Escape');
  await expect(input).toBeHidden();
  await expect(row.locator('[data-column="pages"]')).toHaveText('183');

  // Enter saves.
  await row.getByRole('button', { name: /^Page count of .*Edit$/ }).click();
  await input.fill('321');
  await input.press('Enter');
  await expect(input).toBeHidden();
  await expect(row.locator('[data-column="pages"]')).toHaveText('321');
  expect((await ws.api('GET', `/database/books/${book._id}`)).body.pages).toBe(321);

  // The server's 422 after saving: a rule changed since the page loaded.
  expect((await ws.api('PATCH', '/database/books/fields/pages', { options: { min: 1, max: 300 } })).status).toBe(200);
  await row.getByRole('button', { name: /^Page count of .*Edit$/ }).click();
  await input.fill('400');
  await input.press('Enter');
  await expect(page.getByRole('alert')).toContainText("'pages' must be an integer from 1 to 300");
  await input.press('Escape');
  expect((await ws.api('GET', `/database/books/${book._id}`)).body.pages).toBe(321);

  // A text cell, Escape leaves it as it was.
  await row.getByRole('button', { name: /^Title of / }).click();
  const title = page.getByRole('textbox', { name: `Edit Title of ${book._id}` });
  await title.fill('Changed');
  await title.press('Escape');
  await expect(row.locator('[data-column="title"]')).toHaveText('A Wizard of Earthsea');
});

test('columns: resized and hidden per collection, kept after a reload; checkbox, _id and Actions stay in view', async ({ signedIn: page, ws }) => {
  const { book } = await library(ws);
  await page.setViewportSize({ width: 900, height: 800 });
  await page.goto(`/app/${ws.id}/database/books`);
  const header = page.getByRole('columnheader').filter({ has: page.getByRole('button', { name: 'Sort by Title' }) });
  const before = (await header.boundingBox())!.width;
  const handle = page.getByRole('separator', { name: 'Width of Title' });
  await handle.focus();
  await handle.press('ArrowRight');
  await handle.press('ArrowRight');
  await expect.poll(async () => (await header.boundingBox())!.width).toBeGreaterThan(before + 30);
  await page.getByRole('button', { name: /^Columns/ }).click();
  await page.getByRole('dialog', { name: 'Columns' }).getByRole('checkbox', { name: /Published/ }).uncheck();
  await page.getByRole('dialog', { name: 'Columns' }).getByRole('button', { name: 'Close' }).click();
  await page.reload();
  await expect(page.locator(`[data-record-id="${book._id}"]`)).toBeVisible();
  expect((await header.boundingBox())!.width).toBeGreaterThan(before + 30);
  await expect(page.getByRole('button', { name: 'Sort by Published' })).toHaveCount(0);

  // Scrolled to the far right: the checkbox, _id and Actions cells are still inside the grid.
  const grid = page.getByRole('table', { name: 'Records' });
  await grid.evaluate((el) => { el.scrollLeft = el.scrollWidth; });
  const box = (await grid.boundingBox())!;
  const row = page.locator(`[data-record-id="${book._id}"]`);
  for (const col of ['__select', '_id', '__actions']) {
    const cell = (await row.locator(`[data-column="${col}"]`).boundingBox())!;
    expect(cell.x, col).toBeGreaterThanOrEqual(box.x - 1);
    expect(cell.x + cell.width, col).toBeLessThanOrEqual(box.x + box.width + 1);
  }
  await row.getByRole('button', { name: `Edit record ${book._id}` }).click();
  await expect(page.getByRole('dialog', { name: `Edit record ${book._id}` })).toBeVisible();
});

test('the record form uploads a file for a file field; an empty collection says so; views get readable ids', async ({ signedIn: page, ws }) => {
  await library(ws);
  await ws.api('POST', '/database', { _id: 'empty', setting: { read: 'private', write: 'private', update: 'private' } });
  await page.goto(`/app/${ws.id}/database/empty`);
  await expect(page.getByText('No records yet.')).toBeVisible();

  await page.goto(`/app/${ws.id}/database/books`);
  await page.getByRole('button', { name: 'New record' }).click();
  const form = page.getByRole('dialog', { name: 'New record in books' });
  // Opens at its top: the first label is in view.
  await expect(form.getByText('Title (title) *', { exact: true })).toBeInViewport();
  await form.getByLabel('Title (title) *').fill('The Tombs of Atuan');
  await form.locator('[data-upload-for="cover"]').setInputFiles({ name: 'tombs.txt', mimeType: 'text/plain', buffer: Buffer.from('another cover') });
  await expect(form.getByRole('status').filter({ hasText: 'Uploaded tombs.txt' })).toBeVisible();
  const coverId = await form.getByLabel('Cover (cover)').inputValue();
  expect(coverId).toBeTruthy();
  await expectAccessible(page, 'record form with an upload');
  await form.getByRole('button', { name: 'Create record' }).click();
  await expect(form).toBeHidden();
  const created = (await ws.api('GET', '/database/books?filter[title]=The Tombs of Atuan')).body.data[0];
  expect(created.cover).toBe(coverId);
  expect((await ws.api('GET', `/storage/${coverId}`)).body.name).toBe('tombs.txt');

  await page.getByLabel('Filter', { exact: true }).fill('pages >= 100');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByRole('button', { name: 'Save as view' }).click();
  await page.getByRole('dialog', { name: 'Save as view' }).getByLabel('View name *').fill('Long books');
  await page.getByRole('dialog', { name: 'Save as view' }).getByRole('button', { name: 'Save view' }).click();
  await expect(page).toHaveURL(/view=long-books/);

  // One selected record: singular wording.
  await page.getByRole('checkbox', { name: /^Select record / }).first().check();
  await page.getByRole('button', { name: 'Delete 1 selected' }).click();
  await expect(page.getByRole('dialog', { name: 'Delete 1 record' })).toBeVisible();
});
