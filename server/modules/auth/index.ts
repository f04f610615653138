// The auth module's public face: sign-in and sessions of a workspace's users (the /auth group,
// the outbox), the middleware that reads a request's token, and what other modules ask of a
// session. Other modules and the app import this file only.
export { create, type AuthState } from './memory.js';
export * as schemas from './schemas.js';
export { authModule, limiterOf } from './routes.js';
export { authenticate, authenticateToken, bearerToken, recheckAuth } from './authenticate.js';
export { checkCredentials } from './service.js';
export { createSession, hashToken, revokeSession, sessionsStore, signAccessToken, verifiedClaims, type LoginResult, type SessionDoc, type TokenClaims } from './sessions.js';
export { endsSession, onSessionsEnded, SESSION_END_TOPIC, type SessionEnd } from './session-ends.js';
export { accountEnds } from './account-ends.js';
