// TanStack Query keys, all in one place, one builder per resource, so that a write invalidates
// exactly what it changed. Console-wide data starts with its resource (`['workspaces', ...]`);
// a workspace's data with `['ws', appId, resource, ...]`, so that `keys.ws(appId)` covers all
// of a workspace's data (after a reset, an import or a snapshot restore). A builder's key is the
// prefix of the keys built from it with more arguments: invalidating `keys.webhooks(appId)`
// refreshes every page, webhook and delivery log under it.
export const keys = {
  health: ['health'] as const,
  workspaces: ['workspaces'] as const,
  workspacesPage: (offset: number) => ['workspaces', offset] as const,
  workspaceSwitcher: ['workspaces', 'switcher'] as const,
  snapshots: (appId: string) => ['workspaces', appId, 'snapshots'] as const,

  ws: (appId: string) => ['ws', appId] as const,
  counts: (appId: string) => ['ws', appId, 'counts'] as const,
  snippetToken: (appId: string) => ['ws', appId, 'snippet-token'] as const,
  downloadToken: (appId: string) => ['ws', appId, 'download-token'] as const,

  collections: (appId: string) => ['ws', appId, 'collections'] as const,
  collectionsPage: (appId: string, offset: number) => ['ws', appId, 'collections', offset] as const,
  collectionPicker: (appId: string) => ['ws', appId, 'collections', 'picker'] as const,
  collection: (appId: string, id: string) => ['ws', appId, 'collections', id] as const,
  records: (appId: string, collection: string) => ['ws', appId, 'records', collection] as const,
  recordsPage: (appId: string, collection: string, query: string) => ['ws', appId, 'records', collection, query] as const,
  refLabels: (appId: string, target: string, ids: string[]) => ['ws', appId, 'ref-labels', target, ids] as const,
  refPicker: (appId: string, path: string, typed: string) => ['ws', appId, 'picker', path, typed] as const,

  users: (appId: string) => ['ws', appId, 'users'] as const,
  usersPage: (appId: string, query: Record<string, unknown>) => ['ws', appId, 'users', query] as const,
  userLabels: (appId: string, ids: string[]) => ['ws', appId, 'users', 'labels', ids] as const,
  userPicker: (appId: string, query: Record<string, unknown>) => ['ws', appId, 'users', 'picker', query] as const,

  files: (appId: string) => ['ws', appId, 'files'] as const,
  filesPage: (appId: string, query: Record<string, unknown>) => ['ws', appId, 'files', query] as const,
  filePreview: (appId: string, id: string) => ['ws', appId, 'preview', id] as const,

  webhooks: (appId: string) => ['ws', appId, 'webhooks'] as const,
  webhooksPage: (appId: string, offset: number) => ['ws', appId, 'webhooks', offset] as const,
  webhook: (appId: string, id: string) => ['ws', appId, 'webhooks', 'one', id] as const,
  deliveryLog: (appId: string, id: string) => ['ws', appId, 'webhooks', 'logs', id] as const,
  deliveries: (appId: string, id: string, offset: number) => ['ws', appId, 'webhooks', 'logs', id, offset] as const,

  scenarios: (appId: string) => ['ws', appId, 'scenarios'] as const,
  scenarioPages: (appId: string) => ['ws', appId, 'scenarios', 'page'] as const,
  scenariosPage: (appId: string, offset: number) => ['ws', appId, 'scenarios', 'page', offset] as const,
  scenario: (appId: string, id: string) => ['ws', appId, 'scenarios', 'one', id] as const,
  executions: (appId: string, id: string) => ['ws', appId, 'scenarios', 'executions', id] as const,
  executionsPage: (appId: string, id: string, offset: number) => ['ws', appId, 'scenarios', 'executions', id, offset] as const,

  credentials: (appId: string) => ['ws', appId, 'credentials'] as const,
  credentialsPage: (appId: string, offset: number) => ['ws', appId, 'credentials', offset] as const,
  apiKeys: (appId: string) => ['ws', appId, 'api-keys'] as const,
  oauthClients: (appId: string) => ['ws', appId, 'oauth-clients'] as const,

  outbox: (appId: string) => ['ws', appId, 'outbox'] as const,
  outboxPage: (appId: string, offset: number) => ['ws', appId, 'outbox', offset] as const,
  requests: (appId: string) => ['ws', appId, 'requests'] as const,
  requestsPage: (appId: string, query: Record<string, unknown>) => ['ws', appId, 'requests', query] as const,
  request: (appId: string, id: string) => ['ws', appId, 'request', id] as const,

  channels: (appId: string) => ['ws', appId, 'channels'] as const,
  channelsList: (appId: string, query: Record<string, unknown>) => ['ws', appId, 'channels', 'list', query] as const,
  channel: (appId: string, id: string, actAs?: string) => ['ws', appId, 'channels', 'one', id, actAs ?? ''] as const,
  adminMe: (appId: string) => ['ws', appId, 'channels', 'admin-me'] as const,
  members: (appId: string, channelId: string, actAs?: string) => ['ws', appId, 'channels', 'members', channelId, actAs ?? ''] as const,
};
