// The tools `homebase mcp` offers a coding agent, each with a JSON input schema (from zod) and a
// description that says what it does and what it answers. Every call goes to the Homebase
// server over HTTP (client.ts): nothing here reads or writes a store directly, so the server's
// own rules (validation, unique indexes, events, webhooks) apply to what an agent does.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { HomebaseError, type HomebaseClient, type Query } from './client.js';

const ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists', '$contains', '$startsWith'] as const;

const id = (what: string) => z.string().regex(ID_PATTERN, `${what} must match ${ID_PATTERN.source}`).describe(`${what} (letters, digits, '_' and '-', starting with a letter; at most 64 characters)`);
const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const operand = z.union([scalar, z.array(z.union([z.string(), z.number(), z.boolean()]))]);
const conditions = z.object(Object.fromEntries(OPERATORS.map((op) => [op, operand.optional()]))).strict();

const listArgs = {
  filter: z.record(z.string(), z.union([scalar, conditions])).optional().describe(
    'Conditions, all of which must hold. A field (dot paths reach nested fields) mapped to a value means equality ({"status": "open"}); '
    + `mapped to an object of operators it means those comparisons ({"age": {"$gte": 18, "$lt": 65}, "tags": {"$in": ["a", "b"]}}). Operators: ${OPERATORS.join(' ')}. `
    + '$in/$nin take an array; $exists takes true or false; $contains and $startsWith are case-insensitive on text, and $contains on an array matches an element.'),
  sort: z.string().optional().describe('Comma-separated field names; a leading "-" sorts that field descending (e.g. "-createdAt,title"). Default: oldest first.'),
  limit: z.number().int().min(0).max(100).optional().describe('How many items (0 to 100, default 50; 0 answers only meta.total).'),
  offset: z.number().int().min(0).optional().describe('How many matching items to skip (for paging).'),
  fields: z.array(z.string()).optional().describe('Only these fields (plus _id) of each item, e.g. ["title", "author.name"].'),
};
type ListArgs = { filter?: Record<string, unknown>; sort?: string; limit?: number; offset?: number; fields?: string[] };

/** The list language of the API as query parameters: filter[f]=v, filter[f][$op]=v, sort, limit, offset, fields. */
export function listQuery(args: ListArgs): Query {
  const q: Query = {};
  const text = (v: unknown) => (Array.isArray(v) ? v.map(String).join(',') : v === null ? 'null' : String(v));
  for (const [field, cond] of Object.entries(args.filter ?? {})) {
    if (cond !== null && typeof cond === 'object' && !Array.isArray(cond)) {
      for (const [op, v] of Object.entries(cond)) if (v !== undefined) q[`filter[${field}][${op}]`] = text(v);
    } else {
      q[`filter[${field}]`] = text(cond);
    }
  }
  if (args.sort) q.sort = args.sort;
  if (args.limit !== undefined) q.limit = args.limit;
  if (args.offset !== undefined) q.offset = args.offset;
  if (args.fields?.length) q.fields = args.fields.join(',');
  return q;
}

/** A tool's answer: the server's JSON, or an error result naming the status, code and message. */
async function run(call: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    const result = await call();
    return { content: [{ type: 'text', text: result === null ? 'Done (no content).' : JSON.stringify(result, null, 2) }] };
  } catch (err) {
    if (err instanceof HomebaseError) {
      const details = err.details && Object.keys(err.details as object).length ? `\ndetails: ${JSON.stringify(err.details)}` : '';
      return { isError: true, content: [{ type: 'text', text: `Homebase answered ${err.status} ${err.code}: ${err.message}${details}` }] };
    }
    return { isError: true, content: [{ type: 'text', text: `The request to Homebase failed: ${(err as Error).message}` }] };
  }
}

const READ = { readOnlyHint: true, openWorldHint: false } as const;
const WRITE = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;
const DESTROY = { readOnlyHint: false, destructiveHint: true, openWorldHint: false } as const;

export function registerTools(server: McpServer, hb: HomebaseClient): void {
  const ws = hb.workspace;
  const rec = (collection: string, recordId?: string) => `/database/${encodeURIComponent(collection)}${recordId ? `/${encodeURIComponent(recordId)}` : ''}`;

  server.registerTool('get_schema', {
    title: 'Read the schema',
    description: `The schema of workspace '${ws}': every collection (or the one named) with its access setting (who may read, write, update, remove), its fields (name, type, required, unique, default, rules), views and indexes. Read this first to learn the collections and field names the record tools take.`,
    inputSchema: { collection: id('Collection id').optional().describe('Only this collection (default: all of them)') },
    annotations: READ,
  }, ({ collection }) => run(async () => {
    if (collection) {
      const found = await hb.workspaceApi('GET', '/database', { 'filter[_id]': collection, limit: 1 }) as { data: unknown[] };
      if (found.data.length === 0) throw new HomebaseError(404, 'NOT_FOUND', `No collection '${collection}' (get_schema without arguments lists them)`);
      return found.data[0];
    }
    const all: unknown[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await hb.workspaceApi('GET', '/database', { limit: 100, offset }) as { data: unknown[]; meta: { total: number } };
      all.push(...page.data);
      if (page.data.length === 0 || all.length >= page.meta.total) break;
    }
    return { collections: all };
  }));

  server.registerTool('list_records', {
    title: 'List / query records',
    description: `Records of a collection of workspace '${ws}' matching a filter, sorted and paged: answers { data: [records], meta: { total, limit, offset } } where total counts every match. Filter values are compared by the field's type (see get_schema).`,
    inputSchema: { collection: id('Collection id'), ...listArgs },
    annotations: READ,
  }, ({ collection, ...args }) => run(() => hb.workspaceApi('GET', rec(collection), listQuery(args))));

  server.registerTool('get_record', {
    title: 'Get a record',
    description: `One record of a collection of workspace '${ws}' by its _id.`,
    inputSchema: { collection: id('Collection id'), id: id('Record _id') },
    annotations: READ,
  }, ({ collection, id: recordId }) => run(() => hb.workspaceApi('GET', rec(collection, recordId))));

  server.registerTool('create_record', {
    title: 'Create a record',
    description: `Creates a record in a collection of workspace '${ws}' and answers it (with _id, createdAt, updatedAt). The fields are checked against the collection's schema: a bad one answers a VALIDATION_ERROR naming the field and the reason. Give _id to choose the id; createdAt/updatedAt are set by the server. Webhooks and realtime subscribers see it like any other write.`,
    inputSchema: { collection: id('Collection id'), record: z.record(z.string(), z.unknown()).describe('The record\'s fields, e.g. {"title": "Buy milk", "done": false}') },
    annotations: WRITE,
  }, ({ collection, record }) => run(() => hb.workspaceApi('POST', rec(collection), undefined, record)));

  server.registerTool('update_record', {
    title: 'Update a record',
    description: `Changes the given fields of a record of workspace '${ws}' (a partial update: fields not named keep their value; a field set to null is cleared) and answers the record as it now is.`,
    inputSchema: { collection: id('Collection id'), id: id('Record _id'), changes: z.record(z.string(), z.unknown()).describe('The fields to change, e.g. {"done": true}') },
    annotations: WRITE,
  }, ({ collection, id: recordId, changes }) => run(() => hb.workspaceApi('PATCH', rec(collection, recordId), undefined, changes)));

  server.registerTool('delete_record', {
    title: 'Delete a record',
    description: `Deletes a record of workspace '${ws}' for good (take a snapshot first if it may be needed again).`,
    inputSchema: { collection: id('Collection id'), id: id('Record _id') },
    annotations: DESTROY,
  }, ({ collection, id: recordId }) => run(() => hb.workspaceApi('DELETE', rec(collection, recordId))));

  server.registerTool('list_requests', {
    title: 'Read the request log',
    description: `The most recent requests workspace '${ws}' served, newest first: method, path, status, duration, time, and an id for get_request. Filter e.g. {"status": {"$gte": 400}} to find failures, {"method": "POST"}.`,
    inputSchema: listArgs,
    annotations: READ,
  }, (args) => run(() => hb.console('GET', hb.workspacePath('/requests'), listQuery(args))));

  server.registerTool('get_request', {
    title: 'Read one logged request',
    description: `One entry of the request log of workspace '${ws}' in detail: headers, the request and response bodies (bounded, secrets masked), status and timing.`,
    inputSchema: { id: z.string().min(1).max(200).describe('The entry\'s id (from list_requests)') },
    annotations: READ,
  }, ({ id: entryId }) => run(() => hb.console('GET', hb.workspacePath(`/requests/${encodeURIComponent(entryId)}`))));

  server.registerTool('list_outbox', {
    title: 'Read the outbox',
    description: `Emails workspace '${ws}' would have sent (password reset and the like; nothing leaves the machine), newest first, each with the links and codes found in it. With "to" and "wait" it waits for a message to that address to arrive.`,
    inputSchema: {
      to: z.string().min(1).max(320).optional().describe('Only messages to this address'),
      wait: z.number().int().min(0).max(30_000).optional().describe('With "to": wait up to this many ms (at most 30000) for a message to arrive'),
      limit: listArgs.limit, offset: listArgs.offset,
    },
    annotations: READ,
  }, ({ to, wait, limit, offset }) => run(() => hb.console('GET', hb.workspacePath('/outbox'), { to, wait, limit, offset })));

  server.registerTool('list_webhooks', {
    title: 'List webhooks',
    description: `The webhooks of workspace '${ws}': their _id, name, target URL, events and whether they are active (signing secrets are never shown).`,
    inputSchema: { limit: listArgs.limit, offset: listArgs.offset },
    annotations: READ,
  }, ({ limit, offset }) => run(() => hb.workspaceApi('GET', '/webhooks', { limit, offset })));

  server.registerTool('list_webhook_deliveries', {
    title: 'List a webhook\'s deliveries',
    description: `Delivery attempts of one webhook of workspace '${ws}', newest first: the event, the status the receiver answered (or the error), the duration, and when a failed attempt is retried. Filter e.g. {"status": "failed"}.`,
    inputSchema: { webhook: id('Webhook _id (from list_webhooks)'), ...listArgs },
    annotations: READ,
  }, ({ webhook, ...args }) => run(() => hb.workspaceApi('GET', `/webhooks/${encodeURIComponent(webhook)}/logs`, listQuery(args))));

  server.registerTool('take_snapshot', {
    title: 'Take a snapshot',
    description: `Saves the whole content of workspace '${ws}' (records, schema, users, files, settings) under a name, to restore later with restore_snapshot. A taken name answers a CONFLICT unless overwrite is true.`,
    inputSchema: { name: z.string().min(1).max(64).describe('The snapshot\'s name'), overwrite: z.boolean().optional().describe('Replace a snapshot of that name') },
    annotations: WRITE,
  }, ({ name, overwrite }) => run(() => hb.console('POST', hb.workspacePath('/snapshots'), undefined, { name, ...(overwrite !== undefined ? { overwrite } : {}) })));

  server.registerTool('list_snapshots', {
    title: 'List snapshots',
    description: `The snapshots of workspace '${ws}', oldest first, with when each was taken and how many records, collections, users and files it holds.`,
    inputSchema: {},
    annotations: READ,
  }, () => run(() => hb.console('GET', hb.workspacePath('/snapshots'))));

  server.registerTool('restore_snapshot', {
    title: 'Restore a snapshot',
    description: `Replaces the whole content of workspace '${ws}' with a snapshot (what was written since is gone; users signed in since must sign in again).`,
    inputSchema: { name: z.string().min(1).max(64).describe('The snapshot\'s name (from list_snapshots)') },
    annotations: DESTROY,
  }, ({ name }) => run(() => hb.console('POST', hb.workspacePath(`/snapshots/${encodeURIComponent(name)}/restore`))));
}
