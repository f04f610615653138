// The flags of `homebase serve` in one table: parseArgs options, environment variables and the
// help text all come from it, so that `homebase serve --help` describes every flag with its
// default and its variable, and never drifts from what is parsed.
import { MAX_BODY, MAX_RETRIES, MAX_RETRY_DELAY, MAX_TTL, MAX_WEBHOOK_TIMEOUT, VERSION } from './core/config.js';

export interface FlagSpec {
  name: string;
  type: 'string' | 'boolean';
  /** The value's placeholder in help (`PORT`). */
  value?: string;
  default: string;
  env: string;
  help: string;
  short?: string;
  /** The variable is read by the server's configuration itself (it weighs it against other
   *  options), not filled in by the CLI. */
  envReadByConfig?: boolean;
}

/** Where the docs are: shipped in the package, beside this build. */
export const DOCS = 'shipped in the package: node_modules/homebase/README.md and node_modules/homebase/docs/';

export const SERVE_FLAGS: FlagSpec[] = [
  { name: 'port', type: 'string', value: 'PORT', default: '4700', env: 'HOMEBASE_PORT', help: 'port to listen on; 0 picks a free one' },
  { name: 'host', type: 'string', value: 'HOST', default: '127.0.0.1', env: 'HOMEBASE_HOST', help: 'address to bind; on a non-loopback host the first start needs --admin-password' },
  { name: 'data', type: 'string', value: 'DIR', default: './homebase-data', env: 'HOMEBASE_DATA', help: 'data folder (one server per folder: a lock refuses a second)' },
  { name: 'in-memory', type: 'boolean', default: 'off', env: 'HOMEBASE_IN_MEMORY=1', help: 'keep everything in memory; nothing is written to disk' },
  { name: 'database', type: 'string', value: 'URL', default: 'none: the embedded stores in --data', env: 'HOMEBASE_DATABASE_URL', envReadByConfig: true, help: 'keep everything in PostgreSQL (postgres://user:pw@host/db) instead; not with --data or --in-memory' },
  { name: 'files', type: 'string', value: 'DIR', default: './homebase-files', env: 'HOMEBASE_FILES', help: 'with --database: the folder of uploaded files' },
  { name: 'workspace', type: 'string', value: 'ID', default: 'demo', env: 'HOMEBASE_WORKSPACE', help: 'workspace created on the first start of an empty folder' },
  { name: 'admin-email', type: 'string', value: 'EMAIL', default: 'admin@example.com', env: 'HOMEBASE_ADMIN_EMAIL', help: "that workspace's admin" },
  { name: 'admin-password', type: 'string', value: 'PW', default: 'generated and printed on the first start', env: 'HOMEBASE_ADMIN_PASSWORD', help: "the admin's password (8+ characters)" },
  { name: 'console-token', type: 'string', value: 'TOKEN', default: 'random, kept in the data folder', env: 'HOMEBASE_CONSOLE_TOKEN', help: 'token of the console API (/api/workspaces) and the console' },
  { name: 'seed', type: 'string', value: 'FILE', default: 'none', env: 'HOMEBASE_SEED', help: 'a dump loaded into the workspace at start when it is empty (path relative to the current folder)' },
  { name: 'token-ttl', type: 'string', value: 'SECONDS', default: '900', env: 'HOMEBASE_TOKEN_TTL', help: `access token lifetime (1 to ${MAX_TTL})` },
  { name: 'rate-limit', type: 'string', value: 'N', default: '10000', env: 'HOMEBASE_RATE_LIMIT', help: 'requests per caller per minute on the v2 API (X-RateLimit-* headers, 429 over it); 0 turns the limit and its headers off' },
  { name: 'login-rate-limit', type: 'string', value: 'N', default: '10', env: 'HOMEBASE_LOGIN_RATE_LIMIT', help: 'failed logins per email per minute before 429; 0 turns the limit off' },
  { name: 'webhook-retry-delays', type: 'string', value: 'MS,...', default: '1000,5000,30000,120000', env: 'HOMEBASE_WEBHOOK_RETRY_DELAYS', help: `delays before each webhook retry (up to ${MAX_RETRIES}, each up to ${MAX_RETRY_DELAY} ms); 'none': no retries` },
  { name: 'webhook-timeout', type: 'string', value: 'MS', default: '10000', env: 'HOMEBASE_WEBHOOK_TIMEOUT', help: `how long a webhook delivery waits for an answer (1 to ${MAX_WEBHOOK_TIMEOUT})` },
  { name: 'realtime-max-sockets', type: 'string', value: 'N', default: '100', env: 'HOMEBASE_REALTIME_MAX_SOCKETS', help: 'realtime sockets one user (or anonymous client address) may hold open per workspace; 0: no bound' },
  { name: 'upload-limit', type: 'string', value: 'BYTES', default: '52428800 (50 MiB)', env: 'HOMEBASE_UPLOAD_LIMIT', help: 'largest simple (multipart) upload; larger files go through tus' },
  { name: 'json-limit', type: 'string', value: 'BYTES', default: '1048576 (1 MiB)', env: 'HOMEBASE_JSON_LIMIT', help: `largest JSON body (up to ${MAX_BODY})` },
  { name: 'import-limit', type: 'string', value: 'BYTES', default: '268435456 (256 MiB)', env: 'HOMEBASE_IMPORT_LIMIT', help: 'largest dump POSTed to /api/workspaces/{id}/import' },
  { name: 'public-url', type: 'string', value: 'URL', default: 'the address each request reached', env: 'HOMEBASE_PUBLIC_URL', envReadByConfig: true, help: "the URL clients reach the server at, behind a proxy or balancer (https://homebase.example.com): used in the URLs it sends out, such as a file's url" },
  { name: 'json', type: 'boolean', default: 'off', env: 'HOMEBASE_JSON=1', help: 'print one JSON line {url, consoleUrl, consoleToken, workspaces} on stdout once ready; request lines go to stderr' },
  { name: 'quiet', type: 'boolean', default: 'off', env: 'HOMEBASE_QUIET=1', help: 'no line per request' },
  { name: 'help', type: 'boolean', short: 'h', default: '', env: '', help: 'this help' },
];

/** parseArgs options of `serve`. */
export const SERVE_OPTIONS = Object.fromEntries(SERVE_FLAGS.map((f) => [f.name, { type: f.type, ...(f.short ? { short: f.short } : {}) }])) as
  Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** The environment's value for a flag not given on the command line. */
export function fromEnv(flag: FlagSpec, env: NodeJS.ProcessEnv = process.env): string | boolean | undefined {
  if (flag.envReadByConfig) return undefined;
  const name = flag.env.replace(/=.*$/, '');
  const v = name ? env[name] : undefined;
  if (v === undefined || v === '') return undefined;
  return flag.type === 'boolean' ? !/^(0|false|no|off)$/i.test(v) : v;
}

function table(flags: FlagSpec[]): string {
  return flags.filter((f) => f.name !== 'help').map((f) => {
    const left = `  --${f.name}${f.value ? ` ${f.value}` : ''}`;
    const extra = [f.default ? `default: ${f.default}` : '', f.env ? `env ${f.env}` : ''].filter(Boolean).join('; ');
    return `${left.padEnd(32)}${f.help}\n${' '.repeat(32)}(${extra})`;
  }).join('\n');
}

export const MAIN_HELP = `Homebase ${VERSION}: the hosted Backend-as-a-Service API on your own machine, offline.

Usage:
  homebase serve [flags]          start the server (http://127.0.0.1:4700; workspace API at /api/app/demo)
  homebase admin [flags]          sign in as a workspace's admin: print an access token, or --reset-password
  homebase export --data DIR [--workspace demo] > dump.json
  homebase import --data DIR [--workspace demo] dump.json
  homebase mcp [--url URL | --data DIR] [--workspace demo]   Model Context Protocol server on stdio for coding agents
  homebase types [--url URL | --data DIR] [--workspace demo] [--out FILE] [--watch]
                                  TypeScript types of a workspace for openapi-fetch
  homebase --version

Run 'homebase <command> --help' for a command's flags.
Workspace API: http://127.0.0.1:4700/api/app/{app_id}/...   Console: http://127.0.0.1:4700/
API reference of a running server: http://127.0.0.1:4700/app/demo/api/ (OpenAPI: /api/app/demo/openapi.json)
Docs: ${DOCS}
`;

export const SERVE_HELP = `Usage: homebase serve [flags]

Starts Homebase. It prints the workspace API base, the console link (with its token) and how to
sign in as the admin, then one line per request (method, path, status, duration).
Each flag may also be set by its environment variable; a flag on the command line wins.

${table(SERVE_FLAGS)}

Examples:
  homebase serve                                        # ./homebase-data, http://127.0.0.1:4700
  homebase serve --in-memory --port 0 --json            # for a test run: prints the chosen URL
  homebase serve --seed e2e/fixtures.json --admin-password admin-password-1

Docs: README.md ("Quick start", "The CLI") and docs/console.md; ${DOCS}
`;

export const ADMIN_FLAGS: FlagSpec[] = [
  { name: 'url', type: 'string', value: 'URL', default: 'http://127.0.0.1:4700', env: 'HOMEBASE_URL', help: 'the running server to ask' },
  { name: 'data', type: 'string', value: 'DIR', default: './homebase-data', env: 'HOMEBASE_DATA', help: 'its data folder (where the console token is read; used directly when no server runs)' },
  { name: 'console-token', type: 'string', value: 'TOKEN', default: 'read from the data folder', env: 'HOMEBASE_CONSOLE_TOKEN', help: "the server's console token (needed for an --in-memory server)" },
  { name: 'database', type: 'string', value: 'URL', default: 'none: the embedded stores in --data', env: 'HOMEBASE_DATABASE_URL', envReadByConfig: true, help: 'keep everything in PostgreSQL (postgres://user:pw@host/db) instead; not with --data or --in-memory' },
  { name: 'files', type: 'string', value: 'DIR', default: './homebase-files', env: 'HOMEBASE_FILES', help: 'with --database: the folder of uploaded files' },
  { name: 'workspace', type: 'string', value: 'ID', default: 'demo', env: 'HOMEBASE_WORKSPACE', help: 'the workspace' },
  { name: 'reset-password', type: 'boolean', default: 'off', env: '', help: "set a new password for the admin (generated, or --password) and print it; the admin's other sessions end" },
  { name: 'password', type: 'string', value: 'PW', default: 'generated', env: 'HOMEBASE_ADMIN_PASSWORD', help: 'the new password, with --reset-password' },
  { name: 'json', type: 'boolean', default: 'off', env: '', help: 'print one JSON line {workspace, email, token, expiresIn, password?}' },
  { name: 'help', type: 'boolean', short: 'h', default: '', env: '', help: 'this help' },
];

export const ADMIN_OPTIONS = Object.fromEntries(ADMIN_FLAGS.map((f) => [f.name, { type: f.type, ...(f.short ? { short: f.short } : {}) }])) as
  Record<string, { type: 'string' | 'boolean'; short?: string }>;

export const ADMIN_HELP = `Usage: homebase admin [flags]

Signs in as a workspace's admin without its password: prints an access token of the admin
(stdout: the token alone, so that TOKEN=$(npx homebase admin) works; the rest on stderr).
With --reset-password it also sets a new password and prints it. It asks the server running at
--url (with the console token of --data), or, when none runs, works on the --data folder itself.

${table(ADMIN_FLAGS)}

Docs: README.md ("Quick start") and docs/console.md; ${DOCS}
`;

export const EXPORT_HELP = `Usage: homebase export --data DIR [--workspace demo] > dump.json

Writes a workspace of a data folder (no server running on it) as one JSON dump on stdout.
Docs: README.md ("Fixtures") and docs/testing.md; ${DOCS}
`;

export const IMPORT_HELP = `Usage: homebase import --data DIR [--workspace demo] dump.json

Replaces a workspace's content with a dump (creating the workspace and folder if needed), with no
server running on the folder. A dump without an administrator gets one (admin@example.com, or
HOMEBASE_ADMIN_EMAIL), whose password (HOMEBASE_ADMIN_PASSWORD, or generated) is printed.
Docs: README.md ("Fixtures") and docs/testing.md; ${DOCS}
`;
