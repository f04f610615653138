// What each step type does, once its templates are resolved. Record and message steps go
// through the database and chats services, so they check, validate and publish exactly as the
// REST API does, with the scenario's depth carried on the events they cause.
import type { AppContext } from '../context.js';
import type { AuthInfo } from '../caller.js';
import type { Workspace } from '../../storage/workspace.js';
import { ApiError } from '../../core/errors.js';
import { createRecord, deleteRecord, updateRecord } from '../database/index.js';
import { postMessage } from '../chats/index.js';
import { describeRequestError, HttpTimeout, sendRequest, type IncomingAnswer } from '../../core/outbound-http.js';
import { isHttpUrl } from '../webhooks/index.js';
import { isPlainObject } from './templates.js';
import { maskThenCut, type SecretMasker } from './secret-masker.js';
import { waitUntil } from '../clock/index.js';
import type { StepType } from './schemas.js';

/** Response bodies kept in an http step's output. */
const HTTP_BODY_LIMIT = 64 * 1024;

export interface StepEnv {
  ctx: AppContext;
  ws: Workspace;
  /** The admin the scenario acts as. */
  auth: AuthInfo;
  /** Depth carried on the events this step causes. */
  depth: number;
  signal: AbortSignal;
  /** The execution's secret values: a response body longer than what is kept is masked before
   *  it is cut, so a secret crossing the cut leaves nothing of itself. */
  masker?: SecretMasker;
}

/** A step that ran but failed, with what it produced so far (e.g. a non-2xx response). */
export class StepFailure extends Error {
  constructor(message: string, readonly output: unknown) { super(message); }
}

type Runner = (step: Record<string, unknown>, env: StepEnv) => Promise<unknown>;

export const STEP_RUNNERS: Record<StepType, Runner> = {
  http: runHttp,
  delay: async (step, env) => {
    // The workspace's time: an advance of its clock past the end ends the wait at once.
    const ms = Number(step.ms);
    await waitUntil(env.ctx, env.ws, env.ws.now() + ms, env.signal);
    return { waitedMs: ms };
  },
  'record.create': async (step, env) =>
    createRecord(env.ctx, env.ws, text(step.collection, 'collection'), object(step.data, 'data'), { auth: env.auth, depth: env.depth }),
  'record.update': async (step, env) =>
    updateRecord(env.ctx, env.ws, text(step.collection, 'collection'), text(step.id, 'id'), object(step.data, 'data'), { auth: env.auth, depth: env.depth }),
  'record.delete': async (step, env) => {
    const collection = text(step.collection, 'collection');
    const id = text(step.id, 'id');
    await deleteRecord(env.ctx, env.ws, collection, id, { auth: env.auth, depth: env.depth });
    return { deleted: true, collection, id };
  },
  'message.send': async (step, env) =>
    postMessage(env.ctx, env.ws, {
      channelId: text(step.channelId, 'channelId'), text: text(step.text, 'text'),
      ...(step.messageType !== undefined ? { type: text(step.messageType, 'messageType') } : {}),
    }, { auth: env.auth, depth: env.depth }),
};

async function runHttp(step: Record<string, unknown>, env: StepEnv): Promise<unknown> {
  const url = text(step.url, 'url');
  if (!isHttpUrl(url)) throw new Error(`'url' resolved to something that is not an http(s) URL`);
  const headers: Record<string, string> = {};
  if (step.headers !== undefined && step.headers !== null) {
    for (const [k, v] of Object.entries(object(step.headers, 'headers'))) headers[k.toLowerCase()] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  let body: string | undefined;
  if (step.body !== undefined && step.body !== null) {
    if (typeof step.body === 'string') body = step.body;
    else { body = JSON.stringify(step.body); headers['content-type'] ??= 'application/json'; }
  }
  const method = typeof step.method === 'string' ? step.method : body !== undefined ? 'POST' : 'GET';
  const sent = method === 'GET' || method === 'HEAD' ? undefined : body;
  // Defaults as fetch had them (some APIs refuse a request without a user-agent).
  if (sent !== undefined) headers['content-type'] ??= 'text/plain;charset=UTF-8';
  headers['user-agent'] ??= `Homebase-Scenarios/${env.ctx.config.version}`;
  const request = { method, url, headers, ...(body !== undefined ? { body } : {}) };

  const timeoutMs = env.ctx.config.webhookTimeout;
  let answer: IncomingAnswer;
  try {
    // One request: redirects are not followed (a 3xx fails the step, with the answer in the output).
    answer = await sendRequest({
      // Read past the kept length by the longest secret's length: one crossing the cut is seen whole.
      method, url, headers, body: sent, timeoutMs, limit: HTTP_BODY_LIMIT + (env.masker?.longestBytes ?? 0), signal: env.signal,
    });
  } catch (err) {
    if (env.signal.aborted) throw env.signal.reason;
    if (err instanceof HttpTimeout) throw new StepFailure(`Timed out after ${timeoutMs} ms (${method} ${url})`, { request });
    throw new StepFailure(`${method} ${url} failed: ${describeRequestError(err)}`, { request });
  }
  let kept = answer.body;
  if (Buffer.byteLength(kept) > HTTP_BODY_LIMIT) {
    const readWasCut = Buffer.byteLength(kept) >= HTTP_BODY_LIMIT + (env.masker?.longestBytes ?? 0);
    kept = env.masker ? maskThenCut(kept, env.masker, HTTP_BODY_LIMIT, readWasCut) : Buffer.from(kept).subarray(0, HTTP_BODY_LIMIT).toString('utf8');
  }
  let parsed: unknown = kept;
  if ((answer.headers['content-type'] ?? '').includes('json')) { try { parsed = JSON.parse(kept); } catch { /* keep the text */ } }
  const output = { request, status: answer.status, headers: answer.headers, body: parsed };
  if (answer.status < 200 || answer.status >= 300) throw new StepFailure(`HTTP ${answer.status} from ${method} ${url}`, output);
  return output;
}

function text(v: unknown, field: string): string {
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw ApiError.invalidField(field, 'required', `'${field}' resolved to an empty value`);
}

function object(v: unknown, field: string): Record<string, unknown> {
  if (isPlainObject(v)) return v;
  throw ApiError.invalidField(field, 'type', `'${field}' must be an object (or a template resolving to one)`);
}
