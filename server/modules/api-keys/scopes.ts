// The scopes of API keys and the one table that says which scope a workspace-API request needs.
// The token check (auth/authenticate.ts) asks it for every request made with a key, on v1 and
// v2 alike, before any route runs: no handler checks scopes on its own.

export const API_KEY_SCOPES = [
  'database:read', 'database:write',
  'storage:read', 'storage:write',
  'chats:read', 'chats:write',
  'users:read', 'users:admin',
  'automation:admin',
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** What a request needs of a key: a scope; `null` when any key may make it (the OpenAPI
 *  document); `admin` says the scope stands for an administrator's rights over that group
 *  (users, webhooks, scenarios, secrets are administrators' groups). `refused`: no scope opens
 *  the path to a key (sign-in and session endpoints, the API keys themselves). */
export type ScopeNeed = { scope: ApiKeyScope; admin: boolean } | { scope: null } | { refused: string };

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `path` is relative to the workspace (`/database/todos/1`). */
export function scopeNeeded(method: string, path: string): ScopeNeed {
  const end = path.indexOf('/', 1);
  const group = (end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase();
  const read = READS.has(method.toUpperCase());
  switch (group) {
    case 'database': return { scope: read ? 'database:read' : 'database:write', admin: false };
    case 'storage':
      // Every request of an upload (tus HEAD included) is part of writing a file.
      if (/^\/storage\/upload(\/|$)/i.test(path)) return { scope: 'storage:write', admin: false };
      return { scope: read ? 'storage:read' : 'storage:write', admin: false };
    case 'chats': return { scope: read ? 'chats:read' : 'chats:write', admin: false };
    case 'users': return { scope: read ? 'users:read' : 'users:admin', admin: true };
    case 'webhooks': case 'scenarios': case 'credentials': return { scope: 'automation:admin', admin: true };
    case 'openapi.json': return { scope: null };
    case 'auth': return { refused: 'An API key is not a user session: /auth endpoints need a user\'s access token' };
    case 'api-keys': return { refused: 'API keys are managed with an administrator\'s access token, not with an API key' };
    default: return { refused: `No API key scope opens /${group}` };
  }
}
