// The OAuth module's public face: the protocol endpoints, the client routes the v2 face mounts,
// and what a request's OAuth token lets its caller do. Other modules and the app import this
// file only.
export { clientTokenAuth, scopedUserAuth } from './token-auth.js';
export { mountOAuth } from './protocol-routes.js';
export { oauthClientRoutes } from './routes.js';
