// `homebase mcp` driven by the MCP SDK's own client over stdio, spawning the real CLI against a
// real server (itself the CLI, in a child process): the tools are listed with schemas and
// descriptions, the main tools act (their effects checked over HTTP), bad arguments answer an MCP
// error naming the argument, stdout carries nothing but MCP frames, and a server that cannot be
// reached, an unknown workspace or a locked data folder end the command at start with one line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { exited, serveJson, spawnCli, type Started } from '../test/spawn.js';
import { startReceiver, waitFor, type Receiver } from '../test/receiver.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ADMIN_PASSWORD = 'admin-password-1';

let server: Started;
let rx: Receiver;
let adminToken: string;
const folders: string[] = [];

const api = (path: string) => `${server.line.url}/app/demo${path}`;
async function http(method: string, path: string, body?: unknown) {
  const res = await fetch(api(path), { method, headers: { authorization: `Bearer ${adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** An MCP client on `homebase mcp <args>`; `problems` collects transport errors (a stray line on stdout is one). */
async function connect(args: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath, args: ['--import', 'tsx', 'server/cli.ts', 'mcp', ...args], cwd: ROOT,
    env: { ...process.env as Record<string, string>, HOMEBASE_LOG_LEVEL: 'info', ...env }, stderr: 'pipe',
  });
  const problems: string[] = [];
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d; });
  const client = new Client({ name: 'homebase-test', version: '1.0.0' });
  client.onerror = (err) => problems.push(String(err));
  await client.connect(transport);
  return { client, problems, stderr: () => stderr };
}

type Mcp = Awaited<ReturnType<typeof connect>>;
const textOf = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ type: string; text: string }>).map((c) => c.text).join('\n');
const jsonOf = (r: Awaited<ReturnType<Client['callTool']>>) => { expect(r.isError, textOf(r)).toBeFalsy(); return JSON.parse(textOf(r)); };

beforeAll(async () => {
  server = await serveJson(['--port', '0', '--in-memory', '--admin-password', ADMIN_PASSWORD]);
  adminToken = (await (await fetch(`${server.line.url}/workspaces/demo/token`, { method: 'POST', headers: { authorization: `Bearer ${server.line.consoleToken}` } })).json()).token;
  rx = await startReceiver();
  expect((await http('POST', '/database', {
    _id: 'todos', setting: { read: 'private', write: 'private', update: 'private' },
    fields: [{ name: 'title', type: 'string', required: true }, { name: 'priority', type: 'integer' }],
  })).status).toBe(201);
  expect((await http('POST', '/webhooks', { name: 'todo hook', url: `${rx.url}/hook`, events: ['record.*'] })).status).toBe(201);
}, 60_000);
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await rx?.close();
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

describe('homebase mcp --url', () => {
  let mcp: Mcp;
  beforeAll(async () => { mcp = await connect(['--url', server.line.consoleUrl, '--workspace', 'demo'], { HOMEBASE_CONSOLE_TOKEN: server.line.consoleToken }); }, 60_000);
  afterAll(async () => { await mcp?.client.close(); });

  it('lists its tools, each with a description and a JSON input schema', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'create_record', 'delete_record', 'get_record', 'get_request', 'get_schema', 'list_outbox', 'list_records', 'list_requests',
      'list_snapshots', 'list_webhook_deliveries', 'list_webhooks', 'restore_snapshot', 'take_snapshot', 'update_record',
    ]);
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(40);
      expect(tool.inputSchema.type, tool.name).toBe('object');
    }
    const list = tools.find((t) => t.name === 'list_records')!;
    expect(Object.keys(list.inputSchema.properties ?? {}).sort()).toEqual(['collection', 'fields', 'filter', 'limit', 'offset', 'sort']);
    expect(list.inputSchema.required).toEqual(['collection']);
  });

  it('reads the schema', async () => {
    const schema = jsonOf(await mcp.client.callTool({ name: 'get_schema', arguments: {} }));
    const todos = schema.collections.find((c: { _id: string }) => c._id === 'todos');
    expect(todos.fields.map((f: { name: string }) => f.name)).toEqual(['title', 'priority']);
    expect(jsonOf(await mcp.client.callTool({ name: 'get_schema', arguments: { collection: 'todos' } }))._id).toBe('todos');
  });

  it('creates, queries, updates and deletes records; the effects are there over HTTP', async () => {
    const created = [];
    for (const [title, priority] of [['Buy milk', 1], ['Write tests', 3], ['Ship it', 2]] as const) {
      created.push(jsonOf(await mcp.client.callTool({ name: 'create_record', arguments: { collection: 'todos', record: { title, priority } } })));
    }
    const milk = created[0];
    expect((await http('GET', `/database/todos/${milk._id}`)).body).toMatchObject({ title: 'Buy milk', priority: 1 });

    const page = jsonOf(await mcp.client.callTool({ name: 'list_records', arguments: { collection: 'todos', filter: { priority: { $gte: 2 } }, sort: '-priority', fields: ['title'], limit: 10 } }));
    expect(page.meta.total).toBe(2);
    expect(page.data).toEqual([{ _id: created[1]._id, title: 'Write tests' }, { _id: created[2]._id, title: 'Ship it' }]);
    const byTitle = jsonOf(await mcp.client.callTool({ name: 'list_records', arguments: { collection: 'todos', filter: { title: 'Buy milk' } } }));
    expect(byTitle.data.map((d: { _id: string }) => d._id)).toEqual([milk._id]);

    const updated = jsonOf(await mcp.client.callTool({ name: 'update_record', arguments: { collection: 'todos', id: milk._id, changes: { priority: 5 } } }));
    expect(updated).toMatchObject({ _id: milk._id, title: 'Buy milk', priority: 5 });
    expect((await http('GET', `/database/todos/${milk._id}`)).body.priority).toBe(5);
    expect(jsonOf(await mcp.client.callTool({ name: 'get_record', arguments: { collection: 'todos', id: milk._id } })).priority).toBe(5);

    const deleted = await mcp.client.callTool({ name: 'delete_record', arguments: { collection: 'todos', id: milk._id } });
    expect(deleted.isError).toBeFalsy();
    expect((await http('GET', `/database/todos/${milk._id}`)).status).toBe(404);

    // The server's rules hold: a record breaking the schema is the server's 422, as a tool error.
    const invalid = await mcp.client.callTool({ name: 'create_record', arguments: { collection: 'todos', record: { priority: 'high' } } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/422 VALIDATION_ERROR/);
    const missing = await mcp.client.callTool({ name: 'get_record', arguments: { collection: 'todos', id: milk._id } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/404 NOT_FOUND/);
  });

  it('reads the request log, the outbox, webhooks and their deliveries', async () => {
    const requests = jsonOf(await mcp.client.callTool({ name: 'list_requests', arguments: { filter: { method: 'POST' }, limit: 100 } }));
    const post = requests.data.find((r: { path: string }) => r.path.includes('/database/todos'));
    expect(post).toBeTruthy();
    const detail = jsonOf(await mcp.client.callTool({ name: 'get_request', arguments: { id: post._id ?? post.id } }));
    expect(detail.method).toBe('POST');

    const user = await http('POST', '/users', { email: 'forgetful@example.com', password: 'user-password-1' });
    expect(user.status).toBe(201);
    await fetch(api('/auth/forgot-password'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'forgetful@example.com' }) });
    const outbox = jsonOf(await mcp.client.callTool({ name: 'list_outbox', arguments: { to: 'forgetful@example.com', wait: 10_000 } }));
    expect(outbox.data[0]).toMatchObject({ to: 'forgetful@example.com', type: 'password-reset' });

    const hooks = jsonOf(await mcp.client.callTool({ name: 'list_webhooks', arguments: {} }));
    const hook = hooks.data.find((h: { name: string }) => h.name === 'todo hook');
    expect(hook.url).toBe(`${rx.url}/hook`);
    expect(JSON.stringify(hooks)).not.toContain('whsec_');
    await waitFor(() => rx.received.length >= 1, 10_000, 'a webhook delivery');
    const deliveries = await waitFor(async () => {
      const d = jsonOf(await mcp.client.callTool({ name: 'list_webhook_deliveries', arguments: { webhook: hook._id, limit: 100 } }));
      return d.data.length > 0 ? d : undefined;
    }, 10_000, 'a logged delivery');
    expect(deliveries.data[0]).toHaveProperty('event');
  });

  it('takes, lists and restores snapshots', async () => {
    const before = (await http('GET', '/database/todos?limit=0')).body.meta.total;
    const taken = jsonOf(await mcp.client.callTool({ name: 'take_snapshot', arguments: { name: 'mcp-before' } }));
    expect(taken.name).toBe('mcp-before');
    jsonOf(await mcp.client.callTool({ name: 'create_record', arguments: { collection: 'todos', record: { title: 'after the snapshot' } } }));
    expect((await http('GET', '/database/todos?limit=0')).body.meta.total).toBe(before + 1);
    const list = jsonOf(await mcp.client.callTool({ name: 'list_snapshots', arguments: {} }));
    expect(list.data.map((s: { name: string }) => s.name)).toContain('mcp-before');
    const again = await mcp.client.callTool({ name: 'take_snapshot', arguments: { name: 'mcp-before' } });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/409 CONFLICT/);
    jsonOf(await mcp.client.callTool({ name: 'restore_snapshot', arguments: { name: 'mcp-before' } }));
    expect((await http('GET', '/database/todos?limit=0')).body.meta.total).toBe(before);
  });

  it('answers bad arguments with an MCP error naming the argument, and keeps serving', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['create_record', { collection: 'not an id!', record: {} }, /collection/],
      ['list_records', { collection: 'todos', limit: 'many' }, /limit/],
      ['list_records', { collection: 'todos', filter: { priority: { $between: [1, 2] } } }, /\$between|filter/],
      ['get_record', { collection: 'todos' }, /\bid\b/],
      ['update_record', { collection: 'todos', id: 'abc', changes: 'everything' }, /changes/],
      ['list_outbox', { wait: 99_999 }, /wait/],
    ];
    for (const [name, args, names] of cases) {
      let message: string;
      try {
        const r = await mcp.client.callTool({ name, arguments: args });
        expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
        message = textOf(r);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, `${name} ${JSON.stringify(args)}`).toMatch(names);
    }
    // Still serving.
    expect(jsonOf(await mcp.client.callTool({ name: 'get_schema', arguments: { collection: 'todos' } }))._id).toBe('todos');
    expect(mcp.problems).toEqual([]);
  });
});

describe('homebase mcp --data', () => {
  it('serves a data folder itself, on a loopback port of its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'homebase-mcp-'));
    folders.push(dir);
    const mcp = await connect(['--data', dir, '--workspace', 'shop'], { HOMEBASE_ADMIN_PASSWORD: ADMIN_PASSWORD });
    try {
      expect(jsonOf(await mcp.client.callTool({ name: 'get_schema', arguments: {} }))).toEqual({ collections: [] });
      const snap = jsonOf(await mcp.client.callTool({ name: 'take_snapshot', arguments: { name: 'empty' } }));
      expect(snap.name).toBe('empty');
      expect(mcp.problems).toEqual([]);
      expect(mcp.stderr()).toContain("serving workspace 'shop'");
    } finally {
      await mcp.client.close();
    }
  });

  it('refuses a folder a running server holds, in one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'homebase-mcp-'));
    folders.push(dir);
    const running = await serveJson(['--port', '0', '--data', dir, '--admin-password', ADMIN_PASSWORD]);
    try {
      const r = await exited(spawnCli(['mcp', '--data', dir]));
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^homebase mcp: .*(lock|another|already|in use)/i);
    } finally {
      running.child.kill('SIGTERM');
      await exited(running.child);
    }
  }, 60_000);
});

describe('homebase mcp at start', () => {
  it('a server that is not reachable: one line on stderr, exit 1, nothing on stdout', async () => {
    const r = await exited(spawnCli(['mcp', '--url', 'http://127.0.0.1:9', '--console-token', 'whatever']));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^homebase mcp: cannot reach a Homebase server at http:\/\/127\.0\.0\.1:9 .*\n$/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('an unknown workspace, a refused console token, no console token: one line each, exit 1', async () => {
    const unknown = await exited(spawnCli(['mcp', '--url', server.line.consoleUrl, '--console-token', server.line.consoleToken, '--workspace', 'nope']));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^homebase mcp: there is no workspace 'nope' .*\(it has: demo\)/);
    const refused = await exited(spawnCli(['mcp', '--url', server.line.consoleUrl, '--console-token', 'wrong-token']));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/console token was refused/);
    const none = await exited(spawnCli(['mcp', '--url', server.line.consoleUrl], { HOMEBASE_CONSOLE_TOKEN: '' }));
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/console token/);
    for (const r of [unknown, refused, none]) {
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
