#!/usr/bin/env node
// The `homebase` command: parses arguments and hosts the server. `serve` runs it; export and
// import are added by the test-suite toolkit.
import { parseArgs } from 'node:util';
import { startServer, type ServerOptions } from './index.js';
import { DataFolderLockedError } from './storage/lock.js';
import { DatabaseError } from './storage/pg/connection.js';
import { ConfigError, MAX_BODY, MAX_RETRIES, MAX_RETRY_DELAY, MAX_TTL, MAX_WEBHOOK_TIMEOUT, VERSION } from './core/config.js';
import { exportFromFolder, importIntoFolder, OfflineError } from './modules/workspaces/offline.js';
import { DumpFileError, readSeed } from './modules/workspaces/seed.js';

const USAGE = `Usage:
  homebase serve [--port 4700] [--host 127.0.0.1] [--data ./homebase-data | --in-memory
                 | --database postgres://user:pw@host/db --files ./homebase-files]
                 [--workspace demo] [--admin-email admin@example.com] [--admin-password <pw>]
                 [--console-token <token>] [--seed fixtures.json] [--token-ttl 900]
                 [--login-rate-limit 10] [--webhook-retry-delays 1000,5000,30000,120000]
                 [--webhook-timeout 10000] [--upload-limit 52428800] [--json-limit 1048576] [--json]
  homebase export --data DIR [--workspace demo] > dump.json
  homebase import --data DIR [--workspace demo] dump.json
  homebase --version`;

export const SERVE_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  data: { type: 'string' },
  'in-memory': { type: 'boolean' },
  database: { type: 'string' },
  files: { type: 'string' },
  workspace: { type: 'string' },
  'admin-email': { type: 'string' },
  'admin-password': { type: 'string' },
  'console-token': { type: 'string' },
  seed: { type: 'string' },
  'token-ttl': { type: 'string' },
  'login-rate-limit': { type: 'string' },
  'webhook-retry-delays': { type: 'string' },
  'webhook-timeout': { type: 'string' },
  'upload-limit': { type: 'string' },
  'json-limit': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export class UsageError extends Error {}

/** Runs parseArgs; an unknown flag or a flag without its value is a usage error. */
function usage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function serveOptions(args: string[]): ServerOptions & { json: boolean } {
  const { values } = usage(() => parseArgs({ args, options: SERVE_OPTIONS, allowPositionals: false, strict: true }));
  const int = (name: string, v: string | undefined, min: number, max: number) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max} (got '${v}')`);
    return n;
  };
  const delays = (v: string | undefined) => {
    if (v === undefined) return undefined;
    if (v.trim() === '' || v.trim() === 'none') return [];
    const parts = v.split(',').map((x) => x.trim());
    if (parts.length > MAX_RETRIES || parts.some((x) => !/^\d+$/.test(x) || Number(x) > MAX_RETRY_DELAY)) {
      throw new UsageError(`--webhook-retry-delays must be up to ${MAX_RETRIES} comma-separated delays in ms, each from 0 to ${MAX_RETRY_DELAY} (e.g. 1000,5000,30000; 'none' for no retries) (got '${v}')`);
    }
    return parts.map(Number);
  };
  if (values.data && values['in-memory']) throw new UsageError('--data and --in-memory cannot be used together');
  if (values.database !== undefined && (values.data || values['in-memory'])) throw new UsageError('--database cannot be combined with --data or --in-memory (with a database, uploaded files go to --files DIR)');
  if (values.files !== undefined && values.database === undefined && !process.env.HOMEBASE_DATABASE_URL) throw new UsageError('--files DIR is the uploaded files folder of --database');
  return {
    port: int('port', values.port, 0, 65535),
    host: values.host,
    data: values.data,
    inMemory: values['in-memory'],
    database: values.database,
    files: values.files,
    workspace: values.workspace,
    adminEmail: values['admin-email'],
    adminPassword: values['admin-password'],
    consoleToken: values['console-token'],
    seed: values.seed,
    tokenTtl: int('token-ttl', values['token-ttl'], 1, MAX_TTL),
    loginRateLimit: int('login-rate-limit', values['login-rate-limit'], 0, 1_000_000),
    webhookRetryDelays: delays(values['webhook-retry-delays']),
    webhookTimeout: int('webhook-timeout', values['webhook-timeout'], 1, MAX_WEBHOOK_TIMEOUT),
    uploadLimit: int('upload-limit', values['upload-limit'], 1, Number.MAX_SAFE_INTEGER),
    jsonLimit: int('json-limit', values['json-limit'], 1, MAX_BODY),
    json: !!values.json,
  };
}

async function serve(args: string[]) {
  const { json, ...options } = serveOptions(args);
  const srv = await startServer(options);
  const workspaces = srv.ctx.registry.list().map((w) => w._id);
  if (json) {
    process.stdout.write(JSON.stringify({ url: srv.url, consoleUrl: srv.consoleUrl, consoleToken: srv.consoleToken, workspaces }) + '\n');
    if (srv.generatedAdmin) process.stderr.write(`Admin of '${srv.generatedAdmin.workspace}': ${srv.generatedAdmin.email} / ${srv.generatedAdmin.password} (generated)\n`);
  } else {
    const lines = [
      `Homebase ${VERSION} is running`,
      `  API:           ${srv.url}`,
      `  Console:       ${srv.consoleUrl}`,
      `  Console token: ${srv.consoleToken}`,
      `  Workspaces:    ${workspaces.join(', ') || '(none)'}`,
      `  Data:          ${srv.config.inMemory ? 'in memory (nothing is written to disk)' : srv.config.dataDir}`,
    ];
    if (srv.generatedAdmin) lines.push(`  Admin of '${srv.generatedAdmin.workspace}': ${srv.generatedAdmin.email} / ${srv.generatedAdmin.password} (generated; pass --admin-password to choose)`);
    process.stdout.write(lines.join('\n') + '\n');
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (!json) process.stderr.write(`\n${signal}: finishing requests and flushing data...\n`);
    try {
      await srv.close();
    } catch (err) {
      // The lock is released either way; every acknowledged change is already on disk.
      process.stderr.write(`homebase: ${(err as Error).message}\n`);
      process.exit(1);
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

// export / import work on a data folder with no server running (they take its lock).
function folderArgs(args: string[], positionals: number) {
  const { values, positionals: rest } = usage(() => parseArgs({ args, options: { data: { type: 'string' }, workspace: { type: 'string' } }, allowPositionals: true, strict: true }));
  if (!values.data) throw new UsageError('--data DIR is required');
  if (rest.length !== positionals) throw new UsageError(positionals ? 'give one dump file' : 'unexpected argument');
  return { data: values.data, workspace: values.workspace ?? 'demo', file: rest[0] };
}

async function offline(run: () => Promise<void>) {
  try { await run(); } catch (err) {
    if (!(err instanceof OfflineError) && !(err instanceof DumpFileError)) throw err;
    process.stderr.write(`homebase: ${err.message}\n`);
    process.exitCode = 1;
  }
}

async function exportCommand(args: string[]) {
  const { data, workspace } = folderArgs(args, 0);
  await offline(async () => {
    const json = JSON.stringify(await exportFromFolder(data, workspace), null, 2) + '\n';
    await new Promise<void>((resolve, reject) => process.stdout.write(json, (err) => (err ? reject(err) : resolve())));
  });
}

async function importCommand(args: string[]) {
  const { data, workspace, file } = folderArgs(args, 1);
  await offline(async () => {
    const r = await importIntoFolder(data, workspace, await readSeed(file!, 'dump file'), `The dump file ${file}`);
    process.stderr.write(`Imported into '${workspace}'${r.created ? ' (created)' : ''}: ${r.collections} collections, ${r.records} records, ${r.users} users, ${r.files} files\n`);
  });
}

export const commands: Record<string, (args: string[]) => Promise<void>> = { serve, export: exportCommand, import: importCommand };

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v') { process.stdout.write(`${VERSION}\n`); return; }
  if (!command || command === '--help' || command === '-h' || rest.includes('--help') || rest.includes('-h')) { process.stdout.write(USAGE + '\n'); return; }
  const run = commands[command];
  if (!run) throw new UsageError(`Unknown command '${command}'`);
  await run(rest);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  // Known failures are one line (a bad flag, seed or option, a taken port or folder); a stack
  // trace is printed only for what is a bug.
  const known = err instanceof UsageError || err instanceof DataFolderLockedError || err instanceof DumpFileError || err instanceof ConfigError
    || err instanceof OfflineError || err instanceof DatabaseError || (err as NodeJS.ErrnoException)?.code === 'EADDRINUSE';
  const message = (err as NodeJS.ErrnoException)?.code === 'EADDRINUSE' ? `${(err as Error).message}: the port is taken; pass --port 0 for a free one` : (err as Error)?.message ?? String(err);
  process.stderr.write(`homebase: ${message}\n${err instanceof UsageError ? USAGE + '\n' : ''}`);
  if (!known && !(err instanceof Error && /Refusing to start/.test(err.message))) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
