// Server configuration: defaults, and the options createServer / startServer / the CLI accept.
import { DEFAULT_HEAP_GROWING_PERCENT } from './heap-growth.js';
import { normalisePublicUrl } from './public-url.js';
export interface ServerOptions {
  host?: string;
  port?: number;
  /** Data folder; ignored with inMemory. */
  data?: string;
  inMemory?: boolean;
  /** A PostgreSQL URL (postgres://...): keep everything in that database instead of the data
   *  folder (env HOMEBASE_DATABASE_URL). See docs/scaling.md. */
  database?: string;
  /** With `database`: the folder of uploaded files (default ./homebase-files). */
  files?: string;
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
  /** Failed logins per email per minute before 429; 0 or false turns the limit off. */
  loginRateLimit?: number | false;
  /** Requests per caller per minute on the v2 preview API (default 10,000); 0: no limit. */
  rateLimit?: number;
  /** bcrypt cost (default 10). Below 10 only in a test run (VITEST or NODE_ENV=test set) or
   *  with `allowInsecureBcryptCost`: a low cost makes stolen hashes cheap to crack. */
  bcryptCost?: number;
  /** Lets `bcryptCost` go below 10 outside a test run (benchmarks); never in production. */
  allowInsecureBcryptCost?: boolean;
  /** Webhook retry delays in ms (default 1 s, 5 s, 30 s, 2 min: 5 attempts in all). */
  webhookRetryDelays?: number[];
  /** How long a webhook delivery (or a scenario's http step) waits for an answer, in ms (default 10 s). */
  webhookTimeout?: number;
  /** How many requests the request log keeps per workspace (default 500). */
  requestLogSize?: number;
  /** Characters of request and response bodies the request log keeps per workspace, for its
   *  newest entries (default 256 KiB); older entries keep everything but their bodies. */
  requestLogBodyBytes?: number;
  /** V8's heap growing factor for the process, as a percentage (default 50: a full collection
   *  once the old generation has grown by half; 0 leaves V8's own; env
   *  HOMEBASE_HEAP_GROWING_PERCENT). See core/heap-growth.ts. */
  heapGrowingPercent?: number;
  /** Store compaction interval in ms (default 10 min). */
  compactEvery?: number;
  /** Realtime: ping interval in ms (default 30 s) and the send buffer above which a slow socket is closed (default 4 MiB). */
  realtimePingInterval?: number;
  realtimeMaxBuffered?: number;
  /** Realtime: sockets one user (or, anonymous, one client address) may hold open in a workspace at once (default 100; 0 = no bound). */
  realtimeMaxSockets?: number;
  /** The URL clients reach this server at (`https://homebase.example.com`), when it is not the
   *  address the server listens on (behind a proxy or balancer): used in the URLs the server
   *  sends out, such as a file's `url` (env HOMEBASE_PUBLIC_URL). */
  publicUrl?: string;
}

export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string | undefined;
  inMemory: boolean;
  /** PostgreSQL URL, when the database driver is chosen. */
  database: string | undefined;
  /** Uploaded files' folder with the database driver. */
  filesDir: string | undefined;
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
  rateLimit: number;
  bcryptCost: number;
  webhookRetryDelays: number[];
  webhookTimeout: number;
  requestLogSize: number;
  requestLogBodyBytes: number;
  heapGrowingPercent: number;
  compactEvery: number;
  realtimePingInterval: number;
  realtimeMaxBuffered: number;
  realtimeMaxSockets: number;
  /** Normalised (no trailing slash); undefined: the address each connection reached. */
  publicUrl: string | undefined;
  version: string;
}

export const VERSION = '0.1.0';
export const DEFAULT_PORT = 4700;
export const DEFAULT_HOST = '127.0.0.1';
const MiB = 1024 * 1024;

/** A bad option given to createServer / startServer (the CLI checks its flags before). */
export class ConfigError extends Error {}

/** The lowest bcrypt cost outside tests. */
export const MIN_BCRYPT_COST = 10;

/** A test run: Vitest sets VITEST, Jest sets NODE_ENV=test. */
export function isTestRun(env: Record<string, string | undefined> = process.env): boolean {
  return !!env.VITEST || env.NODE_ENV === 'test';
}

function integer(name: string, v: number | undefined, min: number, max: number): void {
  if (v === undefined) return;
  if (!Number.isInteger(v) || v < min || v > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(v)})`);
}

/** Checks the numeric options; throws a ConfigError naming the first bad one. */
export function checkOptions(options: ServerOptions): void {
  integer('port', options.port, 0, 65535);
  integer('tokenTtl', options.tokenTtl, 1, MAX_TTL);
  integer('refreshTtl', options.refreshTtl, 1, MAX_TTL);
  integer('jsonLimit', options.jsonLimit, 1, MAX_BODY);
  integer('uploadLimit', options.uploadLimit, 1, Number.MAX_SAFE_INTEGER);
  integer('importLimit', options.importLimit, 1, MAX_BODY);
  if (options.loginRateLimit !== undefined && options.loginRateLimit !== false) integer('loginRateLimit', options.loginRateLimit, 0, 1_000_000);
  integer('rateLimit', options.rateLimit, 0, 1_000_000_000);
  integer('bcryptCost', options.bcryptCost, 4, 31);
  if (options.bcryptCost !== undefined && options.bcryptCost < MIN_BCRYPT_COST && !options.allowInsecureBcryptCost && !isTestRun()) {
    throw new ConfigError(`bcryptCost ${options.bcryptCost} is below ${MIN_BCRYPT_COST}: allowed only in a test run (VITEST or NODE_ENV=test) or with allowInsecureBcryptCost`);
  }
  integer('webhookTimeout', options.webhookTimeout, 1, MAX_WEBHOOK_TIMEOUT);
  integer('realtimeMaxSockets', options.realtimeMaxSockets, 0, 1_000_000);
  integer('requestLogBodyBytes', options.requestLogBodyBytes, 0, MAX_BODY);
  integer('heapGrowingPercent', options.heapGrowingPercent, 0, 1000);
  if (options.webhookRetryDelays !== undefined) {
    if (!Array.isArray(options.webhookRetryDelays) || options.webhookRetryDelays.length > MAX_RETRIES) {
      throw new ConfigError(`webhookRetryDelays must be an array of at most ${MAX_RETRIES} delays in ms`);
    }
    options.webhookRetryDelays.forEach((d, i) => integer(`webhookRetryDelays[${i}]`, d, 0, MAX_RETRY_DELAY));
  }
}

/** Limits of the numeric options (the CLI shows the same). */
export const MAX_TTL = 366 * 24 * 3600;
export const MAX_BODY = 2 ** 31 - 1;
export const MAX_WEBHOOK_TIMEOUT = 10 * 60 * 1000;
export const MAX_RETRY_DELAY = 7 * 24 * 3600 * 1000;
export const MAX_RETRIES = 20;

export function resolveConfig(options: ServerOptions = {}): ServerConfig {
  checkOptions(options);
  // The environment's URL applies when the options name no other place for the data.
  const database = options.database ?? (options.inMemory || options.data !== undefined ? undefined : (process.env.HOMEBASE_DATABASE_URL || undefined));
  if (options.database !== undefined && (options.inMemory || options.data !== undefined)) {
    throw new ConfigError('database cannot be combined with data or inMemory: with a database everything but uploaded files lives in PostgreSQL (files: the files folder)');
  }
  if (options.files !== undefined && database === undefined) throw new ConfigError('files is the uploaded files folder of the database driver: give database too');
  const inMemory = !!options.inMemory;
  return {
    host: options.host ?? DEFAULT_HOST,
    port: options.port ?? DEFAULT_PORT,
    dataDir: inMemory || database ? undefined : (options.data ?? './homebase-data'),
    inMemory,
    database,
    filesDir: database ? (options.files ?? './homebase-files') : undefined,
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
    loginRateLimit: options.loginRateLimit === 0 ? false : (options.loginRateLimit ?? 10),
    rateLimit: options.rateLimit ?? 10_000,
    bcryptCost: options.bcryptCost ?? 10,
    webhookRetryDelays: options.webhookRetryDelays ?? [1000, 5000, 30000, 120000],
    webhookTimeout: options.webhookTimeout ?? 10_000,
    requestLogSize: options.requestLogSize ?? 500,
    requestLogBodyBytes: options.requestLogBodyBytes ?? 256 * 1024,
    heapGrowingPercent: options.heapGrowingPercent ?? envHeapGrowingPercent(),
    compactEvery: options.compactEvery ?? 10 * 60 * 1000,
    realtimePingInterval: options.realtimePingInterval ?? 30_000,
    realtimeMaxBuffered: options.realtimeMaxBuffered ?? 4 * MiB,
    realtimeMaxSockets: options.realtimeMaxSockets ?? 100,
    publicUrl: normalisePublicUrl(options.publicUrl ?? (process.env.HOMEBASE_PUBLIC_URL || undefined)),
    version: VERSION,
  };
}

/** HOMEBASE_HEAP_GROWING_PERCENT, else the default; a bad value is a ConfigError naming it. */
function envHeapGrowingPercent(): number {
  const raw = process.env.HOMEBASE_HEAP_GROWING_PERCENT;
  if (raw === undefined || raw === '') return DEFAULT_HEAP_GROWING_PERCENT;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 1000) throw new ConfigError(`HOMEBASE_HEAP_GROWING_PERCENT must be an integer from 0 to 1000 (got ${JSON.stringify(raw)})`);
  return n;
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
