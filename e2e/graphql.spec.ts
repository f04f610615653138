// The GraphiQL page: bundled into the console (every request stays on this server), authorised
// with an admin token, running a query against the workspace's GraphQL endpoint.
import { test, expect, expectAccessible } from './fixtures';

test('GraphiQL runs a query on the workspace schema, loading nothing from another host', async ({ signedIn: page, ws }) => {
  test.setTimeout(60_000);
  await ws.api('POST', '/database', { _id: 'things', setting: { read: 'private', write: 'private', update: 'private' }, fields: [{ _id: 'label', name: 'Label', type: 'string' }] });
  const origin = new URL(ws.base).origin;
  const foreign: string[] = [];
  page.on('request', (r) => { if (!r.url().startsWith(origin) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) foreign.push(r.url()); });
  await page.goto(`/app/${ws.id}`);
  await page.getByRole('navigation', { name: 'Workspace pages' }).getByRole('link', { name: /^GraphQL/ }).click();
  await expect(page).toHaveURL(new RegExp(`/app/${ws.id}/graphql$`));
  await expect(page.getByRole('heading', { level: 1, name: 'GraphQL' })).toBeVisible();
  await expect(page.getByTestId('graphiql').locator('.graphiql-query-editor')).toContainText('WorkspaceFields', { timeout: 30_000 });
  const answered = page.waitForResponse((r) => r.url().endsWith(`/api/v2/app/${ws.id}/graphql`) && r.request().method() === 'POST'
    && (r.request().postData() ?? '').includes('WorkspaceFields'));
  await page.getByRole('button', { name: /Execute query/ }).click();
  const res = await answered;
  expect(res.status()).toBe(200);
  expect(res.request().headers().authorization).toMatch(/^Bearer ey/);
  const body = await res.json() as { data: { __schema: { queryType: { fields: { name: string }[] } } } };
  expect(body.data.__schema.queryType.fields.map((f) => f.name)).toEqual(expect.arrayContaining(['things', 'thingsById', 'users']));
  await expect(page.getByTestId('graphiql').locator('.graphiql-response')).toContainText('thingsById');
  expect(foreign).toEqual([]);
  // The page around GraphiQL; GraphiQL's own widget has axe findings of its own (docs/console.md).
  await expectAccessible(page, 'GraphQL', ['[data-testid="graphiql"]']);
});
