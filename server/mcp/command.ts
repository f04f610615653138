// `homebase mcp [--url URL | --data DIR] [--workspace demo]`: a Model Context Protocol server on
// stdio for coding agents, over one workspace of a Homebase server. With --url it talks to a
// running server (console token from --console-token or HOMEBASE_CONSOLE_TOKEN); with --data it
// starts the server itself, in this process, on that folder, on a free loopback port. stdout
// carries MCP frames only; every other word goes to stderr.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { startServer, type StartedServer } from '../index.js';
import { VERSION, ConfigError } from '../core/config.js';
import { DataFolderLockedError } from '../storage/lock.js';
import { HomebaseClient, McpStartError } from './client.js';
import { registerTools } from './tools.js';

export const MCP_HELP = `Usage: homebase mcp [--url URL | --data DIR] [--workspace demo] [--console-token TOKEN]

A Model Context Protocol server on stdio, for coding agents: tools to read the schema, query
and change records, read the request log, the outbox and webhook deliveries, and take and restore
snapshots of one workspace, each acting as that workspace's admin.

  --url URL              a running server (default http://127.0.0.1:4700; env HOMEBASE_URL)
  --console-token TOKEN  its console token, with --url (env HOMEBASE_CONSOLE_TOKEN)
  --data DIR             serve this data folder here instead (a loopback port of its own); a
                         folder a running server holds is refused by its lock: use --url then
  --workspace ID         the workspace (default demo; env HOMEBASE_WORKSPACE)

Docs: docs/mcp.md
`;

const OPTIONS = {
  url: { type: 'string' }, data: { type: 'string' }, workspace: { type: 'string' }, 'console-token': { type: 'string' }, help: { type: 'boolean', short: 'h' },
} as const;

/** Runs `homebase mcp`; resolves when the client hangs up. Start failures are one line on stderr
 *  and exit code 1 (2 for a usage error). */
export async function mcpCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let values: { url?: string; data?: string; workspace?: string; 'console-token'?: string; help?: boolean };
  try {
    values = parseArgs({ args, options: OPTIONS, allowPositionals: false, strict: true }).values;
  } catch (err) {
    return fail(`${(err as Error).message}\nRun 'homebase mcp --help' for the flags.`, 2);
  }
  if (values.help) { process.stdout.write(MCP_HELP); return; }
  if (values.url !== undefined && values.data !== undefined) return fail('give --url or --data, not both', 2);
  const workspace = values.workspace ?? (env.HOMEBASE_WORKSPACE || 'demo');

  let local: StartedServer | undefined;
  let client: HomebaseClient;
  try {
    if (values.data !== undefined) {
      if (!existsSync(values.data)) throw new McpStartError(`no such data folder: ${values.data}`);
      local = await startServer({ data: values.data, port: 0, host: '127.0.0.1', workspace });
      if (local.generatedAdmin) process.stderr.write(`homebase mcp: new data folder; admin of '${local.generatedAdmin.workspace}': ${local.generatedAdmin.email} / ${local.generatedAdmin.password}\n`);
      client = new HomebaseClient(local.consoleUrl, local.consoleToken, workspace);
    } else {
      const url = values.url ?? (env.HOMEBASE_URL || 'http://127.0.0.1:4700');
      const token = values['console-token'] ?? (env.HOMEBASE_CONSOLE_TOKEN || undefined);
      if (!token) throw new McpStartError("--url needs the server's console token: --console-token TOKEN or HOMEBASE_CONSOLE_TOKEN (a server prints it at start)");
      client = new HomebaseClient(originOf(url), token, workspace);
    }
    await client.connect();
  } catch (err) {
    await local?.close().catch(() => undefined);
    if (err instanceof McpStartError || err instanceof DataFolderLockedError || err instanceof ConfigError) return fail(err.message, 1);
    if (local === undefined && values.data !== undefined) return fail(`could not serve ${values.data}: ${(err as Error).message}`, 1);
    throw err;
  }

  const server = new McpServer(
    { name: 'homebase', title: `Homebase workspace '${workspace}'`, version: VERSION },
    { instructions: `Tools over the Homebase workspace '${workspace}' at ${client.apiBase}/app/${workspace} (a local Backend-as-a-Service). Start with get_schema to learn the collections and their fields.` },
  );
  registerTools(server, client);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  process.stderr.write(`homebase mcp: serving workspace '${workspace}' of ${client.origin} on stdio\n`);
  await closed;
  await server.close().catch(() => undefined);
  await local?.close().catch((err) => process.stderr.write(`homebase mcp: ${(err as Error).message}\n`));
}

/** `http://host:port` from a console URL or an API base URL (`.../api`). */
function originOf(url: string): string {
  let u: URL;
  try { u = new URL(url); } catch { throw new McpStartError(`--url must be a URL such as http://127.0.0.1:4700 (got '${url}')`); }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new McpStartError(`--url must be an http(s) URL (got '${url}')`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '').replace(/\/api$/, '')}`;
}

function fail(message: string, code: number): void {
  process.stderr.write(`homebase mcp: ${message}\n`);
  process.exitCode = code;
}
