// Paths of the webhooks, scenarios and credentials (secrets) groups; all admin only.
import { json, listOf, noContent, pathItem, putAndPatch, ref, type OpSpec, type Schema } from './ops.js';

const WEBHOOKS = 'webhooks';
const SCENARIOS = 'scenarios';
const SECRETS = 'credentials';

export function webhooksPaths(): Record<string, Schema> {
  const update: OpSpec = {
    id: 'webhooks.update', tag: WEBHOOKS, summary: 'Edit a webhook', access: 'admin',
    description: 'Partial: `name`, `url`, `events`, `active`, `filter` (`null` removes it).',
    body: ref('WebhookUpdate'), ok: json(200, 'The webhook', ref('Webhook')), errors: [404],
  };
  return {
    '/webhooks': pathItem('/webhooks', {
      get: { id: 'webhooks.list', tag: WEBHOOKS, summary: 'List webhooks', access: 'admin', list: true, ok: json(200, 'A page of webhooks', listOf(ref('Webhook'))) },
      post: {
        id: 'webhooks.create', tag: WEBHOOKS, summary: 'Create a webhook', access: 'admin',
        description: 'Deliveries are signed per Standard Webhooks with the `secret` returned here, once.',
        body: ref('WebhookCreate'), ok: json(201, 'The webhook and its signing secret', ref('WebhookCreated')),
      },
    }),
    '/webhooks/{id}': pathItem('/webhooks/{id}', {
      get: { id: 'webhooks.get', tag: WEBHOOKS, summary: 'Get a webhook', access: 'admin', ok: json(200, 'The webhook', ref('Webhook')), errors: [404] },
      ...putAndPatch(update),
      delete: { id: 'webhooks.delete', tag: WEBHOOKS, summary: 'Delete a webhook', access: 'admin', description: 'Its pending deliveries and logs go too.', ok: noContent('Deleted'), errors: [404] },
    }),
    '/webhooks/{id}/logs': pathItem('/webhooks/{id}/logs', {
      get: {
        id: 'webhooks.logs', tag: WEBHOOKS, summary: 'Delivery logs of a webhook (newest first)', access: 'admin', list: true,
        ok: json(200, 'A page of log entries', listOf(ref('WebhookLog'))), errors: [404],
      },
    }),
    '/webhooks/{id}/test': pathItem('/webhooks/{id}/test', {
      post: {
        id: 'webhooks.test', tag: WEBHOOKS, summary: 'Send a `webhook.test` event now', access: 'admin',
        description: 'Whatever its events, even while inactive; answers with the log entry of that attempt.',
        ok: json(200, 'The log entry', ref('WebhookLog')), errors: [404],
      },
    }),
  };
}

export function scenariosPaths(): Record<string, Schema> {
  const update: OpSpec = {
    id: 'scenarios.update', tag: SCENARIOS, summary: 'Edit a scenario', access: 'admin',
    description: 'Partial: `name`, `description`, `trigger`, `steps`. An active scenario is checked in full (422).',
    body: ref('ScenarioUpdate'), ok: json(200, 'The scenario', ref('Scenario')), errors: [404],
  };
  const toggle = (active: boolean): OpSpec => ({
    id: active ? 'scenarios.activate' : 'scenarios.deactivate', tag: SCENARIOS, access: 'admin',
    summary: active ? 'Start the scenario (no body)' : 'Stop the scenario (no body)',
    description: active ? '`active: true`; an invalid scenario is a 422 listing every problem.' : '`active: false`.',
    ok: json(200, 'The scenario', ref('Scenario')), errors: active ? [404, 422] : [404],
  });
  return {
    '/scenarios': pathItem('/scenarios', {
      get: { id: 'scenarios.list', tag: SCENARIOS, summary: 'List scenarios', access: 'admin', list: true, ok: json(200, 'A page of scenarios', listOf(ref('Scenario'))) },
      post: {
        id: 'scenarios.create', tag: SCENARIOS, summary: 'Create a scenario', access: 'admin', description: 'New scenarios are inactive.',
        body: ref('ScenarioCreate'), ok: json(201, 'The scenario', ref('Scenario')),
      },
    }),
    '/scenarios/{id}': pathItem('/scenarios/{id}', {
      get: { id: 'scenarios.get', tag: SCENARIOS, summary: 'Get a scenario', access: 'admin', ok: json(200, 'The scenario', ref('Scenario')), errors: [404] },
      ...putAndPatch(update),
      delete: { id: 'scenarios.delete', tag: SCENARIOS, summary: 'Delete a scenario', access: 'admin', description: 'Stops it and deletes its executions.', ok: noContent('Deleted'), errors: [404] },
    }),
    '/scenarios/{id}/activate': pathItem('/scenarios/{id}/activate', { post: toggle(true) }),
    '/scenarios/{id}/deactivate': pathItem('/scenarios/{id}/deactivate', { post: toggle(false) }),
    '/scenarios/{id}/run': pathItem('/scenarios/{id}/run', {
      post: {
        id: 'scenarios.run', tag: SCENARIOS, summary: 'Run the scenario once now', access: 'admin',
        description: 'Whatever its trigger, active or not. Answers once the execution has finished, or after 30 s with it still `running`.',
        ok: json(201, 'The execution', ref('Execution')), errors: [404, 422],
      },
    }),
    '/scenarios/{id}/executions': pathItem('/scenarios/{id}/executions', {
      get: {
        id: 'scenarios.executions', tag: SCENARIOS, summary: 'Execution history (newest first)', access: 'admin', list: true,
        ok: json(200, 'A page of executions', listOf(ref('Execution'))), errors: [404],
      },
    }),
  };
}

export function credentialsPaths(): Record<string, Schema> {
  const update: OpSpec = {
    id: 'credentials.update', tag: SECRETS, summary: 'Replace a secret', access: 'admin',
    description: 'Partial: `name`, `type`, `description`, `value` (write-only).',
    body: ref('SecretUpdate'), ok: json(200, 'The secret\'s metadata', ref('Secret')), errors: [404, 409],
  };
  return {
    '/credentials': pathItem('/credentials', {
      get: { id: 'credentials.list', tag: SECRETS, summary: 'List secrets (values omitted)', access: 'admin', list: true, ok: json(200, 'A page of secrets', listOf(ref('Secret'))) },
      post: {
        id: 'credentials.create', tag: SECRETS, summary: 'Create a secret', access: 'admin',
        description: 'The value is stored encrypted and never returned. A duplicate name is a 409.',
        body: ref('SecretCreate'), ok: json(201, 'The secret\'s metadata', ref('Secret')), errors: [409],
      },
    }),
    '/credentials/{id}': pathItem('/credentials/{id}', {
      get: { id: 'credentials.get', tag: SECRETS, summary: 'A secret\'s metadata', access: 'admin', ok: json(200, 'The secret\'s metadata', ref('Secret')), errors: [404] },
      ...putAndPatch(update),
      delete: { id: 'credentials.delete', tag: SECRETS, summary: 'Delete a secret', access: 'admin', ok: noContent('Deleted'), errors: [404] },
    }),
  };
}
