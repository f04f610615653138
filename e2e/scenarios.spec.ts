// Scenarios: created and edited through the page (an event trigger, a record.create step and a
// delay step), the API's validation error shown at the step it names, activate, the JSON view's
// round trip, run now with the steps' statuses updating while it runs, an event-triggered run.
import { test, expect, expectAccessible } from './fixtures';

test('build a scenario, see a validation error at its step, activate, run now, follow its execution', async ({ signedIn: page, ws }) => {
  test.setTimeout(90_000);
  for (const c of ['orders', 'audit']) {
    expect((await ws.api('POST', '/database', { _id: c, setting: { read: 'private', write: 'private', update: 'private' } })).status).toBe(201);
  }
  await page.goto(`/app/${ws.id}/scenarios`);
  await expect(page.getByRole('link', { name: 'Scenarios', exact: true })).toHaveAttribute('aria-current', 'page');
  await page.getByRole('button', { name: 'New scenario' }).click();
  const dialog = page.getByRole('dialog', { name: 'New scenario' });
  await dialog.getByLabel('Name *').fill('Audit orders');
  await dialog.getByLabel('Trigger').selectOption('event');
  await expectAccessible(page, 'new scenario dialog');
  await dialog.getByRole('button', { name: 'Create scenario' }).click();
  await expect(page.getByRole('heading', { name: /Audit orders/ })).toBeVisible();

  // Trigger: record.created (preset) on orders only.
  const trigger = page.getByRole('group', { name: 'Trigger' });
  await expect(trigger.getByRole('checkbox', { name: 'record.created', exact: true })).toBeChecked();
  await trigger.getByLabel('Only for collection').fill('orders');

  // Two steps: a record write, and a delay out of bounds.
  await page.getByLabel('New step').selectOption('record.create');
  await page.getByRole('button', { name: 'Add step' }).click();
  const first = page.getByRole('group', { name: 'Step 1 · record.create' });
  await first.getByLabel('Collection *').fill('audit');
  await first.getByLabel('Data (JSON object)').fill('{ "note": "order {{event.data._id}}" }');
  await page.getByLabel('New step').selectOption('delay');
  await page.getByRole('button', { name: 'Add step' }).click();
  const second = page.getByRole('group', { name: 'Step 2 · delay' });
  await second.getByLabel('Wait (milliseconds) *').fill('999999');

  // Activate saves the draft, then the full check answers 422 naming steps.1.ms: shown at step 2.
  await page.getByRole('button', { name: 'Activate' }).click();
  await expect(second.getByRole('alert', { name: 'Problems of step 2' })).toContainText('steps.1.ms');
  await expect(second.getByLabel('Wait (milliseconds) *')).toHaveAttribute('aria-invalid', 'true');
  await expect(first.getByRole('alert')).toHaveCount(0);
  await expect(page.getByRole('heading', { name: /Audit orders/ })).toHaveText('Audit orders inactive');
  await expectAccessible(page, 'scenario editor with a validation error');
  const draft = (await ws.api('GET', '/scenarios')).body.data[0];
  expect(draft).toMatchObject({ active: false, trigger: { type: 'event', events: ['record.created'], filter: { collection: 'orders' } }, steps: [{ type: 'record.create', collection: 'audit', data: { note: 'order {{event.data._id}}' } }, { type: 'delay', ms: 999999 }] });

  await second.getByLabel('Wait (milliseconds) *').fill('4000');
  await page.getByRole('button', { name: 'Activate' }).click();
  await expect(page.getByRole('heading', { name: /Audit orders/ })).toHaveText('Audit orders active');
  await expect(page.getByRole('button', { name: 'Deactivate' })).toBeVisible();
  await expect(second.getByRole('alert')).toHaveCount(0);
  await expect(page.getByText('All changes saved.')).toBeVisible();

  // The JSON view holds the scenario as the API takes it, and the forms come back from it.
  await page.getByRole('tab', { name: 'JSON' }).click();
  const json = page.getByRole('textbox', { name: 'Scenario as JSON' });
  await expect(json).toContainText('"ms": 4000');
  await expect(json).toContainText('"collection": "orders"');
  await expectAccessible(page, 'scenario JSON view');
  // Edited there: broken JSON keeps the view (and says why); valid JSON comes back as forms.
  await json.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText('{ "name": ');
  await expect(page.getByRole('alert').filter({ hasText: 'Not JSON' })).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Form' })).toBeDisabled();
  const edited = (await ws.api('GET', '/scenarios')).body.data[0];
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText(JSON.stringify({ name: edited.name, description: 'Notes each order', trigger: edited.trigger, steps: [edited.steps[0], { type: 'delay', ms: 3500 }] }));
  await page.getByRole('tab', { name: 'Form' }).click();
  await expect(page.getByLabel('Description')).toHaveValue('Notes each order');
  await expect(page.getByRole('group', { name: 'Step 2 · delay' }).getByLabel('Wait (milliseconds) *')).toHaveValue('3500');
  await expect(page.getByRole('group', { name: 'Trigger' }).getByLabel('Only for collection')).toHaveValue('orders');
  await expect(page.getByText('Unsaved changes: Activate and Run now save them first.')).toBeVisible();

  // Run now: the execution shows while it runs (step 1 done, step 2 waiting), then its end.
  // Run now on an event trigger asks for a sample event, prefilled from the trigger.
  await page.getByRole('button', { name: 'Run now…' }).click();
  const sample = page.getByRole('dialog', { name: 'Run with a sample event' });
  await expect(sample.getByRole('textbox', { name: 'Sample event (JSON)' })).toContainText('"type": "record.created"');
  await expect(sample.getByRole('textbox', { name: 'Sample event (JSON)' })).toContainText('"collection": "orders"');
  await expect(sample.getByRole('textbox', { name: 'Sample event (JSON)' })).toContainText('"_id": "sample-id"');
  await expectAccessible(page, 'sample event dialog');
  await sample.getByRole('button', { name: 'Run with this event' }).click();
  const execution = page.getByRole('region', { name: /^Execution of / });
  await expect(execution.getByRole('listitem', { name: 'Step 1 record.create: succeeded' })).toBeVisible();
  await expect(execution.getByRole('listitem', { name: 'Step 2 delay: running' })).toBeVisible();
  await expect(execution.getByRole('listitem', { name: 'Step 2 delay: succeeded' })).toBeVisible({ timeout: 15_000 });
  await expect(page.getByText('All changes saved.')).toBeVisible();
  expect((await ws.api('GET', '/scenarios')).body.data[0]).toMatchObject({ description: 'Notes each order', steps: [{ type: 'record.create' }, { type: 'delay', ms: 3500 }] });
  await expect(page.getByRole('row').filter({ hasText: 'manual' })).toContainText('succeeded');
  await execution.getByRole('listitem', { name: 'Step 1 record.create: succeeded' }).getByText('Output').click();
  await expect(execution).toContainText('"note": "order sample-id"');
  await expectAccessible(page, 'scenario with an execution');
  expect((await ws.api('GET', '/database/audit')).body.data).toHaveLength(1);

  // Active on record.created in orders: a record made by an API client runs it too.
  const order = (await ws.api('POST', '/database/orders', { total: 3 })).body;
  await expect(page.getByRole('row').filter({ hasText: 'event' })).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole('row').filter({ hasText: 'event' })).toContainText('succeeded', { timeout: 15_000 });
  const notes = (await ws.api('GET', '/database/audit')).body.data.map((r: { note: string }) => r.note);
  expect(notes).toContain(`order ${order._id}`);

  await page.getByRole('button', { name: 'Deactivate' }).click();
  await expect(page.getByRole('heading', { name: /Audit orders/ })).toHaveText('Audit orders inactive');
  await page.getByRole('link', { name: 'Scenarios', exact: true }).first().click();
  await expect(page.getByRole('row').filter({ hasText: 'Audit orders' })).toContainText('on record.created · orders');
  await expectAccessible(page, 'scenario list');
});
