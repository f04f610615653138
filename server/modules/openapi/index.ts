// The OpenAPI module's public face: the workspace's OpenAPI document and the TypeScript types made
// from it. Other modules and the app import this file only.
export { buildDocument, type DocumentInput } from './document.js';
export type { Schema } from './ops.js';
export { fromZod } from './schemas.js';
export { typesFromDocument } from './typescript.js';
export { openapiModule } from './routes.js';
