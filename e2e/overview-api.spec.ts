// The overview (addresses, counts, working snippets) and the API reference (Swagger UI served
// locally, Authorize prefilled, Try it out answering from this server). The request log has its
// own spec (request-log.spec.ts).
import { test, expect, expectAccessible } from './fixtures';

test('overview shows the addresses, counts and a curl snippet whose token works', async ({ signedIn: page, ws }) => {
  await ws.api('POST', '/database', { _id: 'a', setting: { read: 'private', write: 'private', update: 'private' } });
  await page.goto(`/app/${ws.id}`);
  await expect(page.getByText(`${ws.base}`, { exact: true })).toBeVisible();
  await expect(page.getByText(`ws://127.0.0.1`)).toBeVisible();
  await expect(page.getByRole('link', { name: /Collections/ })).toContainText('1');
  const curl = (await page.locator('pre').first().textContent())!;
  const token = /Bearer ([^']+)'/.exec(curl)![1];
  expect(token).not.toBe('<ACCESS_TOKEN>');
  const res = await fetch(`${ws.base}/database`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  await expectAccessible(page, 'overview');
});

test('API reference: Swagger UI offline, authorised, Try it out answers from this server', async ({ signedIn: page, ws }) => {
  test.setTimeout(120_000);
  await ws.api('POST', '/database', { _id: 'things', setting: { read: 'private', write: 'private', update: 'private' } });
  await page.goto(`/app/${ws.id}`);
  await page.getByRole('link', { name: 'API reference' }).first().click();
  await expect(page).toHaveURL(new RegExp(`/app/${ws.id}/api/$`));
  await expect(page.getByRole('heading', { name: new RegExp(`Homebase workspace ${ws.id}`) })).toBeVisible({ timeout: 30_000 });
  // Authorize is prefilled: the lock shows as locked.
  await expect(page.locator('.swagger-ui .auth-wrapper .authorize.locked')).toBeVisible();
  await expectAccessible(page, 'API reference');
  const doc = await (await fetch(`${ws.base}/openapi.json`)).json();
  await page.locator(`h3.opblock-tag[data-tag="${doc.paths['/database'].get.tags[0]}"]`).click();
  const op = page.locator('.opblock.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/database"]') }).first();
  await op.locator('.opblock-summary').first().click();
  await op.getByRole('button', { name: 'Try it out' }).click();
  const answered = page.waitForResponse((r) => r.url().startsWith(`${ws.base}/database`) && r.request().method() === 'GET');
  await op.getByRole('button', { name: 'Execute' }).click();
  const res = await answered;
  expect(res.status()).toBe(200);
  expect(res.request().headers().authorization).toMatch(/^Bearer ey/);
  await expect(op.locator('.live-responses-table tbody .response-col_status').first()).toContainText('200');
});

test("API reference: Try it out sends no schema placeholders; one main landmark", async ({ signedIn: page, ws }) => {
  test.setTimeout(120_000);
  await ws.api('POST', '/database', { _id: 'things', setting: { read: 'private', write: 'private', update: 'private' } });
  await ws.api('POST', '/database/things', { label: 'first' });
  await page.goto(`/app/${ws.id}/api/`);
  await expect(page.getByRole('heading', { name: new RegExp(`Homebase workspace ${ws.id}`) })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('main')).toHaveCount(1);
  const doc = await (await fetch(`${ws.base}/openapi.json`)).json();
  const path = Object.keys(doc.paths).find((p) => p.endsWith('/database/things'))!;
  await page.locator(`h3.opblock-tag[data-tag="${doc.paths[path].get.tags[0]}"]`).click();
  const list = page.locator('.opblock.opblock-get').filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) }).first();
  await list.locator('.opblock-summary').first().click();
  await list.getByRole('button', { name: 'Try it out' }).click();
  const listed = page.waitForResponse((r) => r.url().startsWith(`${ws.base}/database/things`) && r.request().method() === 'GET');
  await list.getByRole('button', { name: 'Execute' }).click();
  const res = await listed;
  expect(res.url()).not.toContain('additionalProp');
  expect(res.status()).toBe(200);
  expect((await res.json()).meta.total).toBe(1);

  const create = page.locator('.opblock.opblock-post').filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) }).first();
  await create.locator('.opblock-summary').first().click();
  await create.getByRole('button', { name: 'Try it out' }).click();
  const created = page.waitForResponse((r) => r.url().startsWith(`${ws.base}/database/things`) && r.request().method() === 'POST');
  await create.getByRole('button', { name: 'Execute' }).click();
  const made = await (await created).json();
  const stored = (await ws.api('GET', `/database/things/${made._id}`)).body;
  expect(stored._owner).not.toBe('string');
  expect(JSON.stringify(stored)).not.toContain('additionalProp');
});

test('API reference offers the v2 preview: its document, and Try it out answers in the v2 envelope', async ({ signedIn: page, ws }) => {
  test.setTimeout(120_000);
  await ws.api('POST', '/database', { _id: 'things', setting: { read: 'private', write: 'private', update: 'private' } });
  await page.goto(`/app/${ws.id}/api/`);
  await expect(page.getByRole('heading', { name: new RegExp(`Homebase workspace ${ws.id}`) })).toBeVisible({ timeout: 30_000 });
  await page.getByRole('combobox', { name: 'API version' }).selectOption('v2');
  await expect(page.getByRole('heading', { name: /\(v2 preview\)/ })).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('.swagger-ui .auth-wrapper .authorize.locked')).toBeVisible();
  await expectAccessible(page, 'API reference v2');
  const v2Base = ws.base.replace('/api/app/', '/api/v2/app/');
  const doc = await (await fetch(`${v2Base}/openapi.json`)).json();
  await page.locator(`h3.opblock-tag[data-tag="${doc.paths['/database'].get.tags[0]}"]`).click();
  const op = page.locator('.opblock.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/database"]') }).first();
  await op.locator('.opblock-summary').first().click();
  await op.getByRole('button', { name: 'Try it out' }).click();
  const answered = page.waitForResponse((r) => r.url().startsWith(`${v2Base}/database`) && r.request().method() === 'GET');
  await op.getByRole('button', { name: 'Execute' }).click();
  const res = await answered;
  expect(res.status()).toBe(200);
  expect((await res.json()).meta.version).toBe('2');
});
