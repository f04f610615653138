// The shapes of what the console reads from the server, each declared once. Those the server
// shares with the browser (collections, users, workspaces, list answers) come from
// server/shared/models; the rest, which only the console reads, are here.
export type { CollectionDef, CollectionSetting, FieldDef, IndexDef, ListMeta, ListResponse, User, ViewDef, WorkspaceInfo } from '../../../server/shared/models';

/** A record of a collection: whatever it holds, and its id. */
export type Rec = Record<string, unknown> & { _id: string };

/** The answer of creating a workspace: its first admin, with a generated password shown once. */
export interface CreatedWorkspace { _id: string; admin: { email: string; password?: string } }
export interface Snapshot { name: string; createdAt: string; records?: number; collections?: number }

export interface ApiKey { _id: string; name: string; scopes: string[]; expiresAt: string | null; prefix: string; principalId: string; createdAt: string; lastUsedAt?: string | null }
/** The creation answer: the key's value, in it only. */
export type CreatedApiKey = ApiKey & { key: string };

export interface OAuthClient { _id: string; name: string; redirectUris: string[]; scopes: string[]; confidential: boolean; principalId: string; createdAt: string }
/** The creation answer: a confidential client's secret, in it only. */
export type CreatedOAuthClient = OAuthClient & { clientSecret?: string };

/** A secret for scenarios, without its value (write-only: never answered). */
export interface Secret { _id: string; name: string; type: string; description?: string; createdAt: string; updatedAt: string }

export interface WebhookFilter { collection?: string; match?: Record<string, unknown> }
export interface WebhookBatch { maxEvents: number; maxWaitMs: number }
export interface Webhook {
  _id: string; name: string; url: string; events: string[]; active: boolean;
  filter?: WebhookFilter | null; batch?: WebhookBatch | null; createdAt: string;
  /** The signing secret, in the creation answer only. */
  secret?: string;
}
export interface Delivery {
  _id: string; eventId: string; event: string; attempt: number; status: string; durationMs?: number; error?: string | null;
  request: { headers: Record<string, string>; body: unknown; bodyTruncated?: boolean }; response?: { status?: number; body?: string } | null;
  /** When this failed attempt is retried; null when none is. */
  nextAttemptAt?: string | null; redeliveryOf?: string; createdAt: string;
}

export type Trigger = { type: string; [k: string]: unknown };
export type Step = { type: string; [k: string]: unknown };
export interface Scenario {
  _id: string; name: string; description?: string; active: boolean;
  trigger: Trigger; steps: Step[]; createdAt: string; updatedAt: string;
}
export interface StepResult { type: string; status: 'succeeded' | 'failed' | 'skipped'; output: unknown; error: string | null }
export interface Execution {
  _id: string; scenarioId: string; status: 'running' | 'succeeded' | 'failed'; trigger: Record<string, unknown>;
  startedAt: string; finishedAt: string | null; durationMs: number | null; error: string | null; steps: StepResult[];
}

export interface FileObj { _id: string; name: string; size: number; type: string; url: string; _owner?: string; createdAt: string }

/** An email of the outbox (what the workspace would have sent). */
export interface Email { _id: string; type: string; to: string; subject: string; text: string; token?: string; expiresAt?: string; createdAt: string }

/** A request of the request log. */
export interface RequestEntry { _id: string; method: string; path: string; status: number; durationMs: number; time: string; accessRule?: string; console?: true }
export type LoggedBody = { json: unknown } | { text: string; truncated?: true };
export interface RequestDetail extends RequestEntry { headers: Record<string, string | string[]>; requestBody?: LoggedBody; responseBody?: LoggedBody; bodiesDropped?: true }

export interface Channel {
  _id: string; name: string; type: 'group' | 'direct'; description?: string;
  members: string[]; _owner: string; createdAt: string; updatedAt: string;
}
export interface Member { userId: string; name: string; role: 'owner' | 'member'; joinedAt: string }
export interface Message {
  _id: string; channelId: string; text: string; type: string;
  author: { _id: string; name: string }; createdAt: string; updatedAt: string;
}

export interface Health { status: string; version: string }
