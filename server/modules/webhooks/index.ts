// The webhooks module's public face: webhooks (the /webhooks group), their stored form and event
// filters, and the envelope a delivery sends. Other modules and the app import this file only.
export { create, type WebhooksState } from './memory.js';
export * as schemas from './schemas.js';
export { DumpWebhook, EventFilter, EventPatterns, isHttpUrl } from './schemas.js';
export { publicWebhook, storedFilter, wantsEvent } from './service.js';
export { safeEnvelope } from './envelopes.js';
export { webhooksModule } from './routes.js';
