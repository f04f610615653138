// The scopes an API key may be given, in the server's order, with what each opens (the server's
// list is server/modules/api-keys/scopes.ts; scopes.test.ts keeps the two the same).
export const API_KEY_SCOPES = [
  { scope: 'database:read', opens: 'read records' },
  { scope: 'database:write', opens: 'create, change and delete records' },
  { scope: 'storage:read', opens: 'list and download files' },
  { scope: 'storage:write', opens: 'upload and delete files' },
  { scope: 'chats:read', opens: 'read channels and messages' },
  { scope: 'chats:write', opens: 'post and change channels and messages' },
  { scope: 'users:read', opens: 'read users' },
  { scope: 'users:admin', opens: 'create, change and delete users (administrators too)' },
  { scope: 'automation:admin', opens: 'webhooks, scenarios and secrets, as their administrator' },
] as const;
