// Paths of the webhooks, scenarios and credentials (secrets) groups; all admin only.
import { json, pageOf, pathItem, ref, type OpSpec, type Schema } from './ops.js';
import { crudPaths, type Resource } from './crud-paths.js';

const WEBHOOKS = 'webhooks';
const SCENARIOS = 'scenarios';
const SECRETS = 'credentials';

export function webhooksPaths(): Record<string, Schema> {
  const webhook: Resource = { id: 'webhooks', tag: WEBHOOKS, access: 'admin', noun: 'webhook', schema: 'Webhook' };
  return {
    ...crudPaths('/webhooks', webhook, {
      list: {},
      create: {
        description: 'Deliveries are signed per Standard Webhooks with the `secret` returned here, once.',
        body: ref('WebhookCreate'), ok: json(201, 'The webhook and its signing secret', ref('WebhookCreated')),
      },
      get: {},
      update: { summary: 'Edit a webhook', description: 'Partial: `name`, `url`, `events`, `active`, `filter`, `batch` (`null` removes `filter` or `batch`).', body: ref('WebhookUpdate') },
      remove: { description: 'Its pending deliveries and logs go too.' },
    }),
    '/webhooks/{id}/logs': pathItem('/webhooks/{id}/logs', {
      get: {
        id: 'webhooks.logs', tag: WEBHOOKS, summary: 'Delivery logs of a webhook (newest first)', access: 'admin', list: true,
        ok: json(200, 'A page of log entries', pageOf('WebhookLog')), errors: [404],
      },
    }),
    '/webhooks/{id}/test': pathItem('/webhooks/{id}/test', {
      post: {
        id: 'webhooks.test', tag: WEBHOOKS, summary: 'Send a `webhook.test` event now', access: 'admin',
        description: 'Whatever its events, even while inactive; answers with the log entry of that attempt.',
        ok: json(200, 'The log entry', ref('WebhookLog')), errors: [404],
      },
    }),
    '/webhooks/{id}/logs/{logId}/redeliver': pathItem('/webhooks/{id}/logs/{logId}/redeliver', {
      post: {
        id: 'webhooks.redeliver', tag: WEBHOOKS, summary: 'Send a logged event again now', access: 'admin',
        description: 'The same event id, signed anew, as a new delivery (retried like any, even while inactive); answers with the log entry of that attempt.',
        ok: json(200, 'The log entry', ref('WebhookLog')), errors: [404, 409],
      },
    }),
  };
}

export function scenariosPaths(): Record<string, Schema> {
  const scenario: Resource = { id: 'scenarios', tag: SCENARIOS, access: 'admin', noun: 'scenario', schema: 'Scenario' };
  const toggle = (active: boolean): OpSpec => ({
    id: active ? 'scenarios.activate' : 'scenarios.deactivate', tag: SCENARIOS, access: 'admin',
    summary: active ? 'Start the scenario (no body)' : 'Stop the scenario (no body)',
    description: active ? '`active: true`; an invalid scenario is a 422 listing every problem.' : '`active: false`.',
    ok: json(200, 'The scenario', ref('Scenario')), errors: active ? [404, 422] : [404],
  });
  return {
    ...crudPaths('/scenarios', scenario, {
      list: {},
      create: { description: 'New scenarios are inactive.', body: ref('ScenarioCreate') },
      get: {},
      update: {
        summary: 'Edit a scenario', description: 'Partial: `name`, `description`, `trigger`, `steps`. An active scenario is checked in full (422).',
        body: ref('ScenarioUpdate'),
      },
      remove: { description: 'Stops it and deletes its executions.' },
    }),
    '/scenarios/{id}/activate': pathItem('/scenarios/{id}/activate', { post: toggle(true) }),
    '/scenarios/{id}/deactivate': pathItem('/scenarios/{id}/deactivate', { post: toggle(false) }),
    '/scenarios/{id}/run': pathItem('/scenarios/{id}/run', {
      post: {
        id: 'scenarios.run', tag: SCENARIOS, summary: 'Run the scenario once now', access: 'admin',
        description: 'Whatever its trigger, active or not. Answers once the execution has finished, or after 30 s with it still `running`. An optional `event` (`type`, `collection`, `data`) is what `{{event...}}` reads, as an event trigger would give it.',
        body: {
          type: 'object', additionalProperties: false,
          properties: { event: { type: 'object', properties: { type: { type: 'string', example: 'record.created' }, collection: { type: 'string' }, data: { type: 'object', additionalProperties: true } } } },
        },
        bodyRequired: false,
        ok: json(201, 'The execution', ref('Execution')), errors: [404, 422],
      },
    }),
    '/scenarios/{id}/executions': pathItem('/scenarios/{id}/executions', {
      get: {
        id: 'scenarios.executions', tag: SCENARIOS, summary: 'Execution history (newest first)', access: 'admin', list: true,
        ok: json(200, 'A page of executions', pageOf('Execution')), errors: [404],
      },
    }),
  };
}

export function credentialsPaths(): Record<string, Schema> {
  const secret: Resource = { id: 'credentials', tag: SECRETS, access: 'admin', noun: 'secret', schema: 'Secret' };
  const metadata = json(200, 'The secret\'s metadata', ref('Secret'));
  return crudPaths('/credentials', secret, {
    list: { summary: 'List secrets (values omitted)' },
    create: {
      description: 'The value is stored encrypted and never returned. A duplicate name is a 409.',
      body: ref('SecretCreate'), ok: { ...metadata, status: 201 }, errors: [409],
    },
    get: { summary: 'A secret\'s metadata', ok: metadata },
    update: {
      summary: 'Replace a secret', description: 'Partial: `name`, `type`, `description`, `value` (write-only).',
      body: ref('SecretUpdate'), ok: metadata, errors: [409],
    },
    remove: {},
  });
}
