// The API keys module's public face: a key's requests (its principal and scopes) and the key
// routes the v2 face mounts. Other modules and the app import this file only.
export { API_KEY_SCOPES, scopeNeeded, type ApiKeyScope } from './scopes.js';
export { apiKeyAuth } from './authenticate-key.js';
export { apiKeyRoutes } from './routes.js';
