// POST {base_url}/v2/batch: `{ operations: [{ method, path, body? }], atomic? }`, paths relative
// to /v2 (`/app/demo/database/todos`), one workspace per batch, at most 100 operations, run in
// order, each as a request of its own with the batch's credentials (so with the caller's rights,
// the request log and every rule of a single request). Answer: 200 `{ data: [{ status, body }],
// meta }`. With `atomic: true` the first failure undoes every write of the batch (a write group
// of the storage layer) and drops its events (held until the end); the answer is then that
// operation's status and error, with `details.index`.
import type { Express, Request, RequestHandler } from 'express';
import { z } from 'zod';
import type { AppContext } from '../modules/context.js';
import { ApiError } from '../core/errors.js';
import { writeJsonText } from '../core/http.js';
import { parseBody } from '../core/validate.js';
import { inWriteGroup } from '../storage/write-group.js';
import { inject, type Handler, type Injected } from './inject.js';
import { errorWithMeta } from './envelope.js';
import { isReservedRecordId } from '../core/ids.js';

export const MAX_OPERATIONS = 100;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const PATH = /^\/app\/([A-Za-z0-9_-]+)(\/[^?#]*)?(\?.*)?$/;

const BatchBody = z.object({
  operations: z.array(z.object({
    method: z.string().transform((m) => m.toUpperCase()).pipe(z.enum(METHODS)),
    path: z.string().regex(PATH, 'a path under /v2: /app/{app_id}/...'),
    body: z.record(z.string(), z.unknown()).optional(),
  }).strict()).min(1),
  atomic: z.boolean().optional(),
}).strict();


/** The writes an atomic batch may hold: those whose whole state lives in the workspace's stores,
 *  which take part in write groups on both engines (undone from the undo log on the embedded
 *  stores, one transaction on PostgreSQL), their events held until the batch succeeds. Records;
 *  channels, messages and members; webhooks; secrets. Not the others: collections, fields,
 *  views and indexes live in the workspace's settings and change its stores' indexes; users
 *  end sessions and remembered token checks; scenarios start and stop schedules; files write
 *  bytes to disk; the auth actions (sessions, password changes, recovery mail) act beyond the
 *  stores. */
const UNDOABLE: Array<[method: string, path: RegExp]> = [
  ['POST', /^\/database\/[^/]+$/],
  ['PUT|PATCH|DELETE', /^\/database\/[^/]+\/(?!(?:fields|views|indexes)$)[^/]+$/i],
  ['POST', /^\/chats\/channels$/i],
  ['PUT|PATCH|DELETE', /^\/chats\/(?:channels|messages)\/[^/]+$/i],
  ['POST', /^\/chats\/(?!channels$|messages$)[^/]+\/(?:messages|members)$/i],
  ['DELETE', /^\/chats\/(?!channels$|messages$)[^/]+\/members\/[^/]+$/i],
  ['POST', /^\/(?:webhooks|credentials)$/i],
  ['PUT|PATCH|DELETE', /^\/(?:webhooks|credentials)\/[^/]+$/i],
];

function isUndoableWrite(method: string, rest: string): boolean {
  const path = rest.split('?')[0].replace(/\/+$/, '');
  return UNDOABLE.some(([methods, re]) => methods.split('|').includes(method) && re.test(path));
}

interface Result { status: number; body: unknown }

function parse(text: string): unknown {
  if (!text) return null;
  try { return JSON.parse(text); } catch { return text; }
}

export function batchRoute(app: Express, ctx: AppContext): RequestHandler {
  const handler = app as unknown as Handler;
  return async (req: Request, res) => {
    const raw = req.body as { operations?: unknown };
    if (Array.isArray(raw?.operations) && raw.operations.length > MAX_OPERATIONS) {
      throw ApiError.badRequest(`A batch holds at most ${MAX_OPERATIONS} operations (got ${raw.operations.length})`, { field: 'operations', max: MAX_OPERATIONS });
    }
    const body = parseBody(BatchBody, req.body);
    const workspaces = new Set(body.operations.map((op) => PATH.exec(op.path)![1]));
    if (workspaces.size > 1) {
      throw ApiError.badRequest(`A batch acts on one workspace; these operations name ${[...workspaces].join(', ')}`, { field: 'operations', workspaces: [...workspaces] });
    }
    const [workspace] = workspaces;
    if (body.atomic) {
      body.operations.forEach((op, index) => {
        const rest = PATH.exec(op.path)![2] ?? '/';
        if (op.method !== 'GET' && !isUndoableWrite(op.method, rest)) {
          throw ApiError.badRequest(`Operation ${index} (${op.method} ${op.path}): an atomic batch cannot undo this write; it may change records, channels, messages and members, webhooks and secrets, and read anything`, { field: `operations.${index}`, index, operation: `${op.method} ${op.path}` });
        }
      });
    }
    const headers: Record<string, string> = { host: req.headers.host ?? 'localhost' };
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    if (req.headers['x-api-key']) headers['x-api-key'] = String(req.headers['x-api-key']);
    const run = async (index: number): Promise<Injected> => {
      const op = body.operations[index];
      return inject(handler, { method: op.method, url: `/api/v2${op.path}`, headers, body: op.body, remoteAddress: req.socket.remoteAddress });
    };

    const results: Result[] = [];
    const meta = `{"timestamp":"${new Date().toISOString()}","version":"2"}`;
    if (!body.atomic) {
      for (let i = 0; i < body.operations.length; i++) {
        const r = await run(i);
        results.push({ status: r.status, body: parse(r.text) });
      }
      writeJsonText(res, `{"data":${JSON.stringify(results)},"meta":${meta}}`);
      return;
    }
    const failure = await ctx.bus.hold(
      () => inWriteGroup(workspace, async () => {
        for (let i = 0; i < body.operations.length; i++) {
          const r = await run(i);
          if (r.status >= 400) return { commit: false, value: { index: i, result: r } };
          results.push({ status: r.status, body: parse(r.text) });
        }
        return { commit: true, value: undefined };
      }),
      (failed) => failed === undefined,
    );
    if (!failure) {
      writeJsonText(res, `{"data":${JSON.stringify(results)},"meta":${meta}}`);
      return;
    }
    const error = parse(failure.result.text) as { error?: { code: string; message: string; details?: Record<string, unknown> } } | null;
    const inner = error?.error ?? { code: 'INTERNAL', message: 'Internal server error', details: {} };
    res.status(failure.result.status);
    for (const name of ['retry-after', 'allow']) {
      const v = failure.result.headers[name];
      if (v !== undefined) res.setHeader(name, String(v));
    }
    writeJsonText(res, errorWithMeta({ error: { ...inner, message: `Operation ${failure.index} failed, nothing was applied: ${inner.message}`, details: { ...(inner.details ?? {}), index: failure.index } } }));
  };
}
