// TanStack Query keys, one builder per resource, so that a mutation invalidates exactly what
// it changed: ['ws', appId, resource, ...args].
export const keys = {
  health: ['health'] as const,
  workspaces: ['workspaces'] as const,
  snapshots: (appId: string) => ['workspaces', appId, 'snapshots'] as const,
  ws: (appId: string) => ['ws', appId] as const,
  collections: (appId: string) => ['ws', appId, 'collections'] as const,
  collection: (appId: string, id: string) => ['ws', appId, 'collections', id] as const,
  records: (appId: string, collection: string) => ['ws', appId, 'records', collection] as const,
  recordsPage: (appId: string, collection: string, query: string) => ['ws', appId, 'records', collection, query] as const,
  users: (appId: string) => ['ws', appId, 'users'] as const,
  counts: (appId: string) => ['ws', appId, 'counts'] as const,
  list: (appId: string, resource: string, ...args: unknown[]) => ['ws', appId, resource, ...args] as const,
};
