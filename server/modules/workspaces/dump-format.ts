// The dump document (`GET /workspaces/{id}/export`, `homebase export`, seeds): its shape, and
// which stores go into which section or stay out of it.
import type { CollectionDef } from '../../shared/models.js';

export const DUMP_FORMAT = 'homebase-dump';
export const DUMP_VERSION = 1;

type Doc = Record<string, unknown> & { _id: string };

export interface Dump {
  format: typeof DUMP_FORMAT;
  version: typeof DUMP_VERSION;
  exportedAt?: string;
  workspace?: { _id?: string; name?: string; firstAdminId?: string };
  schema?: { collections?: CollectionDef[] };
  /** Collection id → its records. */
  records?: Record<string, Doc[]>;
  /** With `passwordHash` (bcrypt), so that users still sign in after an import. A hand-written
   *  seed may give `password` instead; it is hashed at import. */
  users?: Doc[];
  /** File objects with their bytes as base64 in `content`. */
  files?: Array<Doc & { content: string }>;
  /** Never with their signing secret on export. On import a webhook may carry `secret`
   *  (`whsec_` + base64 of 24 to 64 bytes), which it keeps; without one it gets a new one. */
  webhooks?: Array<Doc & { secret?: string }>;
  scenarios?: Doc[];
  /** Metadata only: values never leave the server. */
  secrets?: Doc[];
  /** Any other store (channels, messages, and what later modules add), by store name. */
  stores?: Record<string, Doc[]>;
}

/** Stores with a section of their own in the dump. */
export const SECTION_STORES = new Set(['users', 'files', 'webhooks', 'scenarios', 'credentials']);

/** Operational stores: never exported; an import or a reset empties them. Sessions are left
 *  alone by every swap (see state.ts). */
export const OPERATIONAL_STORES = new Set([
  'sessions', 'reset-tokens', 'outbox', 'webhook_deliveries', 'webhook_batches', 'webhook_logs',
  'executions', 'scenario_executions', 'login-attempts',
  // API keys belong to the live workspace: never exported (their values are shown once), and a
  // fork or a snapshot starts without them.
  'api_keys',
  // OAuth clients (their secrets are shown once) and pending authorization codes likewise.
  'oauth_clients', 'oauth_codes',
]);
