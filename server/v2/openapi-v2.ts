// The v2 OpenAPI 3.1 document (`GET {base_url}/v2/app/{app_id}/openapi.json`): the v1 document
// of the workspace (modules/openapi, the one source of its paths and schemas) rewritten for the
// v2 face: the server address, every JSON answer in the envelope (lists with `pagination`),
// errors with `meta`, the rate-limit headers on every answer, ETag / Cache-Control /
// If-None-Match (304) on reads, If-Match (412) on changes, `cursor` and `or` groups on lists,
// `fields` on every read, PUT as a replacement (records here, the other groups in
// openapi-v2-replace.ts), and `POST /batch`.
import type { RequestHandler } from 'express';
import type { AppContext } from '../modules/context.js';
import { buildDocument, type DocumentInput } from '../modules/openapi/index.js';
import { listCollections } from '../modules/database/index.js';
import { apiBaseOf } from '../modules/storage/index.js';
import { writeJsonText } from '../core/http.js';
import type { Schema } from '../modules/openapi/index.js';
import { MAX_OPERATIONS } from './batch.js';
import { addAccessPaths } from './openapi-v2-access.js';
import { replacingPuts } from './openapi-v2-replace.js';

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'] as const;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const header = (name: string): Schema => ({ $ref: `#/components/headers/${name}` });
const param = (name: string): Schema => ({ $ref: `#/components/parameters/${name}` });
const response = (name: string): Schema => ({ $ref: `#/components/responses/${name}` });

const RATE_HEADERS = { 'X-RateLimit-Limit': header('XRateLimitLimit'), 'X-RateLimit-Remaining': header('XRateLimitRemaining'), 'X-RateLimit-Reset': header('XRateLimitReset') };

function v2Components(errorBody: Schema): { schemas: Record<string, Schema>; headers: Record<string, Schema>; parameters: Record<string, Schema>; responses: Record<string, Schema> } {
  const str = { type: 'string' };
  const nullableCursor = { type: ['string', 'null'], description: 'An opaque cursor to pass back as `cursor`, or null at this end of the list' };
  return {
    schemas: {
      V2Meta: { type: 'object', required: ['timestamp', 'version'], properties: { timestamp: { type: 'string', format: 'date-time' }, version: { const: '2' } } },
      V2ListMeta: {
        type: 'object', required: ['timestamp', 'version', 'total', 'limit'],
        properties: { timestamp: { type: 'string', format: 'date-time' }, version: { const: '2' }, total: { type: 'integer', minimum: -1, description: 'Items matching the list\'s filter in all; -1 when asked for with `skipTotal=true`' }, limit: { type: 'integer', minimum: 0 }, offset: { type: 'integer', minimum: 0, description: 'Present when the page was asked for by offset' } },
      },
      V2Links: { type: 'object', required: ['self'], properties: { self: { ...str, format: 'uri' }, collection: { ...str, format: 'uri' } } },
      V2Pagination: { type: 'object', required: ['next', 'prev', 'hasMore'], properties: { next: nullableCursor, prev: nullableCursor, hasMore: { type: 'boolean' } } },
      V2Error: { type: 'object', required: ['error', 'meta'], properties: { error: errorBody, meta: ref('V2Meta') } },
      V2BatchRequest: {
        type: 'object', required: ['operations'], additionalProperties: false,
        properties: {
          operations: {
            type: 'array', minItems: 1, maxItems: MAX_OPERATIONS,
            items: {
              type: 'object', required: ['method', 'path'], additionalProperties: false,
              properties: {
                method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
                path: { type: 'string', pattern: '^/app/[A-Za-z0-9_-]+(/.*)?$', description: 'Relative to /v2: `/app/{app_id}/database/todos`; every operation names the same workspace' },
                body: { type: 'object' },
              },
            },
          },
          atomic: { type: 'boolean', description: 'All or nothing: the first failing operation undoes every write of the batch (writes of records, channels, messages, members, webhooks and secrets; another write is a 400)' },
        },
      },
      V2BatchResult: {
        type: 'object', required: ['data', 'meta'],
        properties: {
          data: { type: 'array', items: { type: 'object', required: ['status', 'body'], properties: { status: { type: 'integer' }, body: { description: 'The operation\'s v2 answer (null for a 204)' } } } },
          meta: ref('V2Meta'),
        },
      },
    },
    headers: {
      XRateLimitLimit: { description: 'Requests allowed per caller per minute (absent with --rate-limit 0)', schema: { type: 'integer' } },
      XRateLimitRemaining: { description: 'Requests left in the current window', schema: { type: 'integer' } },
      XRateLimitReset: { description: 'Seconds until the window resets', schema: { type: 'integer' } },
      ETag: { description: 'Strong entity tag of the representation (`data`, and for a list its page): send it back in If-None-Match or If-Match', schema: str },
      CacheControl: { description: '`private, no-cache`: revalidate every time', schema: str },
      Location: { description: 'Absolute URL of the created resource', schema: { ...str, format: 'uri' } },
      RetryAfter: { description: 'Seconds to wait', schema: { type: 'integer' } },
      Allow: { description: 'The methods the path serves', schema: str },
    },
    parameters: {
      cursor: {
        name: 'cursor', in: 'query', schema: str,
        description: '`pagination.next` or `pagination.prev` of an earlier page of the same list (same filter, sort and view): the page after (or before) it, by position, never skipping or repeating a record because others were created or deleted. Not with `offset`. A malformed or foreign cursor is a 400 naming `cursor`.',
      },
      ifNoneMatch: { name: 'If-None-Match', in: 'header', schema: str, description: 'An ETag of this resource: 304 when it is still current' },
      ifMatch: { name: 'If-Match', in: 'header', schema: str, description: 'The ETag the change expects (or `*`): 412 and nothing written when the resource changed; a malformed value is a 400' },
      partialFields: { name: 'fields', in: 'query', schema: str, description: 'Comma-separated field paths to return (plus `_id`): `fields=title,meta.a`' },
    },
    responses: {
      NotModified: { description: 'The ETag in If-None-Match is current', headers: { ETag: header('ETag'), 'Cache-Control': header('CacheControl'), ...RATE_HEADERS } },
      PreconditionFailed: {
        description: 'If-Match names a version that is no longer current; nothing was written (`details.etag` is the current tag)',
        headers: RATE_HEADERS, content: { 'application/json': { schema: ref('V2Error') } },
      },
      TooManyRequests: {
        description: 'Over the per-caller rate limit (or, on sign-in, too many failed logins for the email)',
        headers: { 'Retry-After': header('RetryAfter'), ...RATE_HEADERS }, content: { 'application/json': { schema: ref('V2Error') } },
      },
    },
  };
}

function isListSchema(schema: Schema | undefined, schemas: Record<string, Schema>): Schema | undefined {
  if (!schema) return undefined;
  const target = typeof schema.$ref === 'string' ? schemas[(schema.$ref as string).split('/').pop()!] : schema;
  const props = target?.properties as Record<string, Schema> | undefined;
  const meta = props?.meta;
  return props?.data && (props.data as Schema).type === 'array' && typeof meta?.$ref === 'string' && (meta.$ref as string).endsWith('/ListMeta') ? (props.data as Schema).items as Schema : undefined;
}

function envelopeOne(data: Schema): Schema {
  return { type: 'object', required: ['data', 'meta', 'links'], properties: { data, meta: ref('V2Meta'), links: ref('V2Links') } };
}

function envelopeList(item: Schema): Schema {
  return {
    type: 'object', required: ['data', 'meta', 'links', 'pagination'],
    properties: { data: { type: 'array', items: item }, meta: ref('V2ListMeta'), links: ref('V2Links'), pagination: ref('V2Pagination') },
  };
}

const DESCRIPTION = [
  'The **v2 preview** of the workspace API (not backward compatible with v1, served beside it). Every 2xx JSON answer is `{ data, meta: { timestamp, version: "2" }, links: { self, collection? } }`; lists add `meta.total`, `meta.limit` and `pagination: { next, prev, hasMore }` (pass `next` / `prev` back as `cursor`); errors keep v1\'s `{ error }` and add `meta`.',
  '',
  '**REST**: `PATCH` merges; `PUT` replaces the whole resource, in every group (fields not sent are removed or back to their creation defaults, required fields must be sent, read-only ones such as `_id`, `_owner`, `createdAt` are kept; each PUT says what it keeps); creations answer 201 with `Location`; deletions 204; a method a path does not serve is a 405 with `Allow`. Collections change at `/database/{collection}` only.',
  '',
  '**Lists**: `limit`, `cursor` (or `offset`), `sort` (then `_id`), `fields`, `filter[...]` and one `or` group: `filter[$or][0][role]=admin&filter[$or][1][age][$gte]=30` (a branch ANDs its conditions, `filter[$or][N][$and][M][...]` once; deeper is a 400).',
  '',
  '**Caching**: reads answer a strong `ETag` and `Cache-Control: private, no-cache`; `If-None-Match` → 304; `If-Match` on PUT/PATCH/DELETE → 412 when stale. **Compression**: br or gzip above 1 KiB. **Rate limit**: `X-RateLimit-Limit`, `-Remaining`, `-Reset` on every answer, 429 with `Retry-After` over it.',
  '',
  '**Batch**: `POST {base_url}/v2/batch` runs up to 100 operations of one workspace in order; `atomic: true` applies record writes all or nothing.',
].join('\n');

/** The v2 document of a workspace. */
export function buildV2Document(input: DocumentInput): Schema {
  const doc = structuredClone(buildDocument(input)) as Schema & {
    info: Schema; servers: Schema[]; paths: Record<string, Record<string, Schema>>;
    components: { schemas: Record<string, Schema>; responses: Record<string, Schema>; parameters: Record<string, Schema>; headers?: Record<string, Schema> };
  };
  const serverUrl = `${input.apiBase}/v2/app/${encodeURIComponent(input.workspace)}`;
  doc.info = { ...doc.info, title: `${String(doc.info.title)} (v2 preview)`, description: DESCRIPTION };
  doc.servers = [{ url: serverUrl, description: `Workspace ${input.workspace}, v2 preview` }];
  const { schemas, responses, parameters } = doc.components;
  const extra = v2Components(((schemas.Error?.properties as Record<string, Schema> | undefined)?.error) ?? { type: 'object' });
  Object.assign(schemas, extra.schemas);
  doc.components.headers = { ...(doc.components.headers ?? {}), ...extra.headers };
  Object.assign(parameters, extra.parameters);
  // Error answers: v1's body plus meta, and the rate-limit headers.
  for (const [name, r] of Object.entries(responses)) {
    const content = r.content as Record<string, { schema: Schema; example?: Schema }> | undefined;
    if (content?.['application/json']) {
      const example = content['application/json'].example;
      content['application/json'] = { schema: ref('V2Error'), ...(example ? { example: { ...example, meta: { timestamp: '2026-01-01T00:00:00.000Z', version: '2' } } } : {}) };
    }
    responses[name] = { ...r, headers: { ...((r.headers as Schema | undefined) ?? {}), ...RATE_HEADERS } };
  }
  Object.assign(responses, extra.responses);
  if (parameters.filter) {
    parameters.filter = {
      ...parameters.filter,
      description: `${String(parameters.filter.description)} v2 adds one \`or\` group: \`filter[$or][N][field]=value\` or \`filter[$or][N][field][$op]=value\` (branch N holds when all its conditions do; \`filter[$or][N][$and][M][field]...\` once inside), ANDed with the other filters; nesting deeper is a 400.`,
      schema: { type: 'object', additionalProperties: true },
    };
  }

  for (const [path, item] of Object.entries(doc.paths)) {
    if (path === '/database') { delete item.put; delete item.patch; }
    const recordItem = /^\/database\/(?:\{collection\}|[^/{}]+)\/\{id\}$/.test(path);
    const createBody = recordItem ? ((doc.paths[path.replace(/\/\{id\}$/, '')]?.post?.requestBody) as Schema | undefined) : undefined;
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const res = op.responses as Record<string, Schema>;
      for (const [status, r] of Object.entries(res)) {
        if (!/^2\d\d$/.test(status) || r.$ref) continue;
        const content = r.content as Record<string, { schema?: Schema }> | undefined;
        const headers: Record<string, Schema> = { ...((r.headers as Schema | undefined) ?? {}), ...RATE_HEADERS };
        if (method === 'get' && content?.['application/json']) { headers.ETag = header('ETag'); headers['Cache-Control'] = header('CacheControl'); }
        if (status === '201') headers.Location = header('Location');
        const json = content?.['application/json'];
        if (json?.schema && path !== '/openapi.json') {
          const item = isListSchema(json.schema, schemas);
          json.schema = item ? envelopeList(item) : envelopeOne(json.schema);
        }
        res[status] = { ...r, headers };
      }
      res['429'] = response('TooManyRequests');
      const params = (op.parameters as Schema[] | undefined) ?? [];
      const has = (name: string) => params.some((p) => p.$ref === `#/components/parameters/${name}` || p.name === name);
      if (method === 'get') {
        if (has('limit')) params.splice(params.findIndex((p) => p.$ref === '#/components/parameters/offset'), 0, param('cursor'));
        if (!has('fields')) params.push(param('partialFields'));
        params.push(param('ifNoneMatch'));
        res['304'] = response('NotModified');
      }
      if (method === 'put' || method === 'patch' || method === 'delete') {
        params.push(param('ifMatch'));
        res['412'] = response('PreconditionFailed');
        res['400'] ??= response('BadRequest');
      }
      if (recordItem && method === 'put') {
        op.summary = String(op.summary).replace(/^Update/, 'Replace');
        op.description = `Whole replacement: fields not sent are removed, required fields and defaults apply as on creation; \`_id\`, \`_owner\`, \`createdAt\` are kept. ${String(op.description ?? '').replace(/^Partial update\.\s*/, '')}`;
        if (createBody) op.requestBody = createBody;
      }
      if (recordItem && method === 'patch') op.summary = String(op.summary).replace(/ \(PATCH: same as PUT\)$/, ' (merge the fields sent)');
      if (params.length) op.parameters = params;
      op.responses = Object.fromEntries(Object.entries(res).sort(([a], [b]) => (a === 'default' ? 1 : b === 'default' ? -1 : a.localeCompare(b))));
    }
  }
  replacingPuts(doc);
  if (doc.paths['/openapi.json']?.get) (doc.paths['/openapi.json'].get as Schema).summary = 'This OpenAPI document (v2)';

  doc.paths['/batch'] = {
    servers: [{ url: `${input.apiBase}/v2`, description: 'The batch endpoint is outside the workspace path' }] as unknown as Schema,
    post: {
      operationId: 'batch', tags: ['meta'], summary: 'Run up to 100 operations of one workspace in order',
      description: 'Each operation runs as a request of its own with the batch\'s credentials. With `atomic: true` the first failure undoes every write (it may hold writes of records, channels, messages, members, webhooks and secrets; another write is a 400) and the answer is that failure, with `details.index`.',
      requestBody: { required: true, content: { 'application/json': { schema: ref('V2BatchRequest') } } },
      responses: {
        200: { description: 'Every operation\'s status and answer', headers: RATE_HEADERS, content: { 'application/json': { schema: ref('V2BatchResult') } } },
        400: response('BadRequest'),
        401: response('Unauthorized'),
        403: response('Forbidden'),
        404: response('NotFound'),
        409: response('Conflict'),
        413: response('PayloadTooLarge'),
        415: response('UnsupportedMediaType'),
        422: response('ValidationError'),
        429: response('TooManyRequests'),
        default: response('Internal'),
      },
    },
  };
  addAccessPaths(doc, input.apiBase, input.workspace);
  return doc;
}

/** `GET /openapi.json` of the v2 face: the document itself (not an API resource, so no
 *  envelope), generated per request from the current collections; no token needed. */
export function openapiV2Route(ctx: AppContext): RequestHandler {
  return (req, res) => {
    const doc = buildV2Document({ apiBase: apiBaseOf(req), workspace: req.ws.id, version: ctx.config.version, collections: listCollections(req.ws) });
    res.setHeader('Cache-Control', 'no-store');
    writeJsonText(res, JSON.stringify(doc));
  };
}
