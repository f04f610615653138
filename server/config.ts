// Server configuration: defaults, and the options createServer / startServer / the CLI accept.
export interface ServerOptions {
  host?: string;
  port?: number;
  /** Data folder; ignored with inMemory. */
  data?: string;
  inMemory?: boolean;
  /** Workspace created on first start of an empty data folder. */
  workspace?: string;
  adminEmail?: string;
  adminPassword?: string;
  consoleToken?: string;
  /** A dump (path or object) loaded into the default workspace at start. */
  seed?: string | Record<string, unknown>;
  /** Access token lifetime in seconds (default 900). */
  tokenTtl?: number;
  /** Refresh token lifetime in seconds (default 30 days). */
  refreshTtl?: number;
  /** JSON body limit in bytes (default 1 MiB). */
  jsonLimit?: number;
  /** Simple upload limit in bytes (default 50 MiB). */
  uploadLimit?: number;
  /** How long an unfinished tus upload is kept, in ms (default 24 h). */
  uploadExpiry?: number;
  /** Import body limit in bytes (default 256 MiB). */
  importLimit?: number;
  /** Failed logins per email per minute before 429; false turns the limit off. */
  loginRateLimit?: number | false;
  /** bcrypt cost (default 10, minimum 10 outside tests). */
  bcryptCost?: number;
  /** Webhook retry delays in ms (default 1 s, 5 s, 30 s, 2 min: 5 attempts in all). */
  webhookRetryDelays?: number[];
  webhookTimeout?: number;
  /** How many requests the request log keeps per workspace (default 500). */
  requestLogSize?: number;
  /** Store compaction interval in ms (default 10 min). */
  compactEvery?: number;
  /** Realtime: ping interval in ms (default 30 s) and the send buffer above which a slow socket is closed (default 4 MiB). */
  realtimePingInterval?: number;
  realtimeMaxBuffered?: number;
}

export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string | undefined;
  inMemory: boolean;
  workspace: string;
  adminEmail: string;
  adminPassword: string | undefined;
  consoleToken: string | undefined;
  seed: string | Record<string, unknown> | undefined;
  tokenTtl: number;
  refreshTtl: number;
  jsonLimit: number;
  uploadLimit: number;
  uploadExpiry: number;
  importLimit: number;
  loginRateLimit: number | false;
  bcryptCost: number;
  webhookRetryDelays: number[];
  webhookTimeout: number;
  requestLogSize: number;
  compactEvery: number;
  realtimePingInterval: number;
  realtimeMaxBuffered: number;
  version: string;
}

export const VERSION = '0.1.0';
export const DEFAULT_PORT = 4700;
export const DEFAULT_HOST = '127.0.0.1';
const MiB = 1024 * 1024;

export function resolveConfig(options: ServerOptions = {}): ServerConfig {
  const inMemory = !!options.inMemory;
  return {
    host: options.host ?? DEFAULT_HOST,
    port: options.port ?? DEFAULT_PORT,
    dataDir: inMemory ? undefined : (options.data ?? './homebase-data'),
    inMemory,
    workspace: options.workspace ?? 'demo',
    adminEmail: options.adminEmail ?? process.env.HOMEBASE_ADMIN_EMAIL ?? 'admin@example.com',
    adminPassword: options.adminPassword ?? process.env.HOMEBASE_ADMIN_PASSWORD,
    consoleToken: options.consoleToken ?? process.env.HOMEBASE_CONSOLE_TOKEN,
    seed: options.seed,
    tokenTtl: options.tokenTtl ?? 900,
    refreshTtl: options.refreshTtl ?? 30 * 24 * 3600,
    jsonLimit: options.jsonLimit ?? 1 * MiB,
    uploadLimit: options.uploadLimit ?? 50 * MiB,
    uploadExpiry: options.uploadExpiry ?? 24 * 3600 * 1000,
    importLimit: options.importLimit ?? 256 * MiB,
    loginRateLimit: options.loginRateLimit ?? 10,
    bcryptCost: options.bcryptCost ?? 10,
    webhookRetryDelays: options.webhookRetryDelays ?? [1000, 5000, 30000, 120000],
    webhookTimeout: options.webhookTimeout ?? 10_000,
    requestLogSize: options.requestLogSize ?? 500,
    compactEvery: options.compactEvery ?? 10 * 60 * 1000,
    realtimePingInterval: options.realtimePingInterval ?? 30_000,
    realtimeMaxBuffered: options.realtimeMaxBuffered ?? 4 * MiB,
    version: VERSION,
  };
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
