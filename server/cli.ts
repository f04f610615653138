#!/usr/bin/env node
// The `homebase` command: parses arguments and hosts the server. `serve` runs it; export and
// import are added by the test-suite toolkit.
import { parseArgs } from 'node:util';
import { startServer, type ServerOptions } from './index.js';
import { DataFolderLockedError } from './storage/lock.js';
import { DatabaseError, redactUrl } from './storage/pg/database-error.js';
import { ConfigError, DEFAULT_PORT, MAX_BODY, MAX_RETRIES, MAX_RETRY_DELAY, MAX_TTL, MAX_WEBHOOK_TIMEOUT, VERSION } from './core/config.js';
import { exportFromFolder, importIntoFolder, OfflineError } from './modules/workspaces/index.js';
import { DumpFileError, readSeed } from './modules/workspaces/index.js';
import { ADMIN_FLAGS, ADMIN_HELP, ADMIN_OPTIONS, EXPORT_HELP, IMPORT_HELP, MAIN_HELP, SERVE_FLAGS, SERVE_HELP, SERVE_OPTIONS, fromEnv, type FlagSpec } from './cli-flags.js';
import { logRequests } from './cli-requests.js';
import { AdminCommandError, runAdmin } from './cli-admin.js';
import { typesCommand } from './cli-types.js';
import { firstAdminStored } from './modules/workspaces/index.js';

export { SERVE_OPTIONS };

export class UsageError extends Error {}

/** Runs parseArgs; an unknown flag or a flag without its value is a usage error. */
function usage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Flags from the command line, completed from their environment variables. */
function withEnv(flags: FlagSpec[], given: Record<string, string | boolean | undefined>, env: NodeJS.ProcessEnv): Record<string, string | boolean | undefined> {
  const out = { ...given };
  for (const f of flags) if (out[f.name] === undefined) out[f.name] = fromEnv(f, env);
  return out;
}

export function serveOptions(args: string[], env: NodeJS.ProcessEnv = process.env): ServerOptions & { json: boolean; quiet: boolean } {
  const parsed = usage(() => parseArgs({ args, options: SERVE_OPTIONS, allowPositionals: false, strict: true }));
  // A flag on the command line wins over its variable; --data on the command line also wins
  // over HOMEBASE_IN_MEMORY, and the other way round.
  const cli = parsed.values as Record<string, string | boolean | undefined>;
  const values = withEnv(SERVE_FLAGS, cli, env) as Record<string, any>;
  if (cli.data !== undefined && cli['in-memory'] === undefined) values['in-memory'] = undefined;
  if (cli['in-memory'] && cli.data === undefined) values.data = undefined;
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
  if (values.data && values['in-memory']) throw new UsageError('--data and --in-memory cannot be used together (check HOMEBASE_DATA and HOMEBASE_IN_MEMORY)');
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
    rateLimit: int('rate-limit', values['rate-limit'], 0, 1_000_000_000),
    webhookRetryDelays: delays(values['webhook-retry-delays']),
    webhookTimeout: int('webhook-timeout', values['webhook-timeout'], 1, MAX_WEBHOOK_TIMEOUT),
    realtimeMaxSockets: int('realtime-max-sockets', values['realtime-max-sockets'], 0, 1_000_000),
    uploadLimit: int('upload-limit', values['upload-limit'], 1, Number.MAX_SAFE_INTEGER),
    jsonLimit: int('json-limit', values['json-limit'], 1, MAX_BODY),
    importLimit: int('import-limit', values['import-limit'], 1, MAX_BODY),
    publicUrl: values['public-url'],
    json: !!values.json,
    quiet: !!values.quiet,
  };
}

/** How to run a homebase command from here: `npx homebase` in a project, the npm script in a
 *  checkout of Homebase itself (where the sources run). */
function commandName(): string {
  return import.meta.url.endsWith('.ts') ? 'npm run --silent homebase --' : 'npx homebase';
}

/** The `homebase admin` command that reaches this server (flags only where not the default). */
function adminCommand(srv: Awaited<ReturnType<typeof startServer>>): string {
  const parts = [commandName(), 'admin'];
  if (srv.consoleUrl !== `http://127.0.0.1:${DEFAULT_PORT}`) parts.push('--url', srv.consoleUrl);
  if (srv.config.inMemory) parts.push('--console-token', srv.consoleToken);
  else if (srv.config.dataDir && srv.config.dataDir !== './homebase-data') parts.push('--data', quoteArg(srv.config.dataDir));
  if (srv.config.workspace !== 'demo') parts.push('--workspace', srv.config.workspace);
  return parts.join(' ');
}

const quoteArg = (v: string) => (/^[\w./:@=-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);

async function serve(args: string[]) {
  if (args.includes('--help') || args.includes('-h')) { process.stdout.write(SERVE_HELP); return; }
  const { json, quiet, ...options } = serveOptions(args);
  const srv = await startServer(options);
  const workspaces = srv.ctx.registry.list().map((w) => w._id);
  const main = workspaces.includes(srv.config.workspace) ? srv.config.workspace : workspaces[0];
  const consoleLink = `${srv.consoleUrl}/#token=${srv.consoleToken}`;
  const generated = srv.generatedAdmin;
  const admin = main && !json ? await firstAdminEmail(srv, main) : undefined; // the JSON line has no admin
  const signIn = [
    generated
      ? `  Admin:          ${generated.email} / ${generated.password}  (generated on this first start: keep it)`
      : admin ? `  Admin:          ${admin}  (${srv.config.adminPassword ? 'password from --admin-password / HOMEBASE_ADMIN_PASSWORD' : 'password printed on the first start'})` : '',
    `  Admin token:    ${adminCommand(srv)}   (add --reset-password to set a new password)`,
  ].filter(Boolean);
  if (json) {
    process.stdout.write(JSON.stringify({ url: srv.url, consoleUrl: srv.consoleUrl, consoleToken: srv.consoleToken, workspaces }) + '\n');
    if (generated) process.stderr.write(`Admin of '${generated.workspace}': ${generated.email} / ${generated.password} (generated)\n`);
  } else {
    const lines = [
      `Homebase ${VERSION} is running`,
      // The example answers without a token (the workspace's OpenAPI document); the API reference
      // link carries the console token like the console link, so it opens signed in.
      `  Workspace API:  ${srv.url}/app/${main ?? '{app_id}'}      (e.g. GET ${srv.url}/app/${main ?? '{app_id}'}/openapi.json)`,
      `  Console:        ${consoleLink}`,
      `  API reference:  ${srv.consoleUrl}/app/${main ?? '{app_id}'}/api/#token=${srv.consoleToken}`,
      ...signIn,
      `  Workspaces:     ${workspaces.join(', ') || '(none)'}`,
      `  Data:           ${srv.config.database ? `PostgreSQL ${redactUrl(srv.config.database)}, files in ${srv.config.filesDir}` : srv.config.inMemory ? 'in memory (nothing is written to disk)' : srv.config.dataDir}`,
      `  Console token:  ${srv.consoleToken}   (console API: ${srv.url}/workspaces)`,
      quiet ? '' : 'Requests:',
    ].filter((l) => l !== '');
    process.stdout.write(lines.join('\n') + '\n');
  }
  // The bin's code cache (bin/code-cache.js) is written now that a start has run, when it needs to be.
  (globalThis as Record<symbol, (() => void) | undefined>)[Symbol.for('homebase.started')]?.();
  // With --json, stdout carries only its line: request lines go to stderr.
  if (!quiet) logRequests(srv.server, json ? process.stderr : process.stdout);
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

async function firstAdminEmail(srv: Awaited<ReturnType<typeof startServer>>, workspace: string): Promise<string | undefined> {
  const ws = srv.ctx.registry.get(workspace);
  if (ws) await firstAdminStored(srv.ctx, ws); // an in-memory start stores it just after the start
  const id = ws?.settings.data.firstAdminId;
  const user = id ? (await (await ws!.store('users')).get(id)) as { email?: string } | undefined : undefined;
  return user?.email;
}

async function exportCommand(args: string[]) {
  if (args.includes('--help') || args.includes('-h')) { process.stdout.write(EXPORT_HELP); return; }
  const { data, workspace } = folderArgs(args, 0);
  await offline(async () => {
    const json = JSON.stringify(await exportFromFolder(data, workspace), null, 2) + '\n';
    await new Promise<void>((resolve, reject) => process.stdout.write(json, (err) => (err ? reject(err) : resolve())));
  });
}

async function importCommand(args: string[]) {
  if (args.includes('--help') || args.includes('-h')) { process.stdout.write(IMPORT_HELP); return; }
  const { data, workspace, file } = folderArgs(args, 1);
  await offline(async () => {
    const r = await importIntoFolder(data, workspace, await readSeed(file!, 'dump file'), `The dump file ${file}`);
    process.stderr.write(`Imported into '${workspace}'${r.created ? ' (created)' : ''}: ${r.collections} collections, ${r.records} records, ${r.users} users, ${r.files} files\n`);
    if (r.addedAdmin) {
      process.stderr.write(`The dump has no administrator, so one was added: ${r.addedAdmin.email} / ${r.addedAdmin.password}\n`);
    }
  });
}

async function adminCommandRun(args: string[]) {
  if (args.includes('--help') || args.includes('-h')) { process.stdout.write(ADMIN_HELP); return; }
  const parsed = usage(() => parseArgs({ args, options: ADMIN_OPTIONS, allowPositionals: false, strict: true }));
  const v = withEnv(ADMIN_FLAGS, parsed.values as Record<string, string | boolean | undefined>, process.env) as Record<string, any>;
  try {
    const r = await runAdmin({
      url: v.url ?? `http://127.0.0.1:${DEFAULT_PORT}`, data: v.data ?? './homebase-data', consoleToken: v['console-token'],
      workspace: v.workspace ?? 'demo', resetPassword: !!v['reset-password'], password: v.password,
    });
    if (v.json) {
      process.stdout.write(JSON.stringify({ workspace: r.workspace, email: r.email, token: r.token, expiresIn: r.expiresIn, ...(r.password ? { password: r.password } : {}) }) + '\n');
      return;
    }
    const lines = [`Admin of '${r.workspace}': ${r.email}${r.via === 'folder' ? ' (no server running: worked on the data folder)' : ''}`];
    if (r.created) lines.push(`The workspace had no administrator: created ${r.email} / ${r.password}`);
    else if (r.password) lines.push(`New password: ${r.password}  (the admin's other sessions have ended)`);
    lines.push(`Access token (valid ${Math.round(r.expiresIn / 60)} min) on stdout; use it as: Authorization: Bearer <token>`);
    process.stderr.write(lines.join('\n') + '\n');
    process.stdout.write(r.token + '\n');
  } catch (err) {
    if (!(err instanceof AdminCommandError)) throw err;
    process.stderr.write(`homebase: ${err.message}\n`);
    process.exitCode = 1;
  }
}

// `homebase mcp` (server/mcp/) loads the MCP SDK only when asked for; it ends the process itself
// once its client hangs up (the server it may have started holds timers until then).
const mcp = (args: string[]) => import('./mcp/command.js').then(async (m) => { await m.mcpCommand(args); process.exit(); });

export const commands: Record<string, (args: string[]) => Promise<void>> = { serve, export: exportCommand, import: importCommand, admin: adminCommandRun, mcp, types: typesCommand };

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v') { process.stdout.write(`${VERSION}\n`); return; }
  if (!command || command === '--help' || command === '-h' || command === 'help') { process.stdout.write(MAIN_HELP); return; }
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
  process.stderr.write(`homebase: ${message}\n${err instanceof UsageError ? "Run 'homebase --help' (or 'homebase <command> --help') for the flags.\n" : ''}`);
  if (!known && !(err instanceof Error && /Refusing to start/.test(err.message))) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
  process.exit(err instanceof UsageError ? 2 : 1);
});

