// Builds OpenAPI operations and path items from short specs: security by access level, the list
// query parameters, and the error responses each kind of request can answer.
import { FILTER_OPERATORS } from '../../storage/query.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../core/list-query.js';

export type Schema = Record<string, unknown>;
export type Method = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete' | 'options';
/** Who may call: nobody needs a token (`none`), a token is used when given (`optional`),
 *  any signed-in user (`user`), an administrator (`admin`). */
export type Access = 'none' | 'optional' | 'user' | 'admin';

export interface Success {
  status: number;
  description: string;
  /** JSON body schema; omitted for 204 and for non-JSON answers given in `content`. */
  schema?: Schema;
  content?: Record<string, Schema>;
  headers?: Record<string, Schema>;
}

export interface OpSpec {
  id: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  /** A list endpoint: limit, offset, sort, fields, filter[...] (and 400 for a bad query). */
  list?: boolean;
  /** More parameters (query, header). */
  params?: Schema[];
  /** JSON request body schema; validated (422). */
  body?: Schema;
  bodyRequired?: boolean;
  /** A body that is not JSON (multipart, tus): its request body object as is. */
  rawBody?: Schema;
  ok: Success | Success[];
  /** Statuses beyond the ones every request of its kind may answer (403, 409, 422, 429...). */
  errors?: number[];
  /** Security requirements replacing the ones of `access`. */
  security?: Schema[];
  /** Any API key may call it (no scope needed): no 403 for a key (the document itself). */
  anyKey?: boolean;
}

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

export const listOf = (item: Schema): Schema => ({
  type: 'object',
  required: ['data', 'meta'],
  properties: { data: { type: 'array', items: item }, meta: ref('ListMeta') },
});

/** The component name of a schema's list-item variant: `User` → `UserListItem`,
 *  `Record.todos` → `RecordListItem.todos`. */
export const listItemName = (name: string): string => (name.includes('.') ? name.replace('.', 'ListItem.') : `${name}ListItem`);

/** A page of a list endpoint that takes `fields=`: items hold `_id` and the chosen fields only, so
 *  the item schema (the `ListItem` variant, listItemSchema) requires nothing else. */
export const pageOf = (name: string): Schema => listOf(ref(listItemName(name)));

/** A request body's schema without `default` keywords (each said in its description instead):
 *  generators such as openapi-typescript take a property with a default as always present,
 *  which is true of what the server answers, not of what a client must send. */
export function withoutDefaults(schema: Schema): Schema {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const { default: value, ...rest } = schema;
  const out: Schema = { ...rest };
  if (value !== undefined) out.description = `${rest.description ? `${String(rest.description)} ` : ''}Default: \`${JSON.stringify(value)}\`.`;
  const each = (o: unknown) => Object.fromEntries(Object.entries(o as Schema).map(([k, v]) => [k, withoutDefaults(v as Schema)]));
  for (const key of ['properties', '$defs', 'patternProperties']) if (out[key] && typeof out[key] === 'object') out[key] = each(out[key]);
  for (const key of ['items', 'additionalProperties', 'not', 'propertyNames']) if (out[key] && typeof out[key] === 'object') out[key] = withoutDefaults(out[key] as Schema);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) if (Array.isArray(out[key])) out[key] = (out[key] as Schema[]).map(withoutDefaults);
  return out;
}

/** The list-item variant of an object schema: the same properties, only `_id` required. */
export function listItemSchema(schema: Schema): Schema {
  const required = Array.isArray(schema.required) ? (schema.required as string[]).filter((k) => k === '_id') : [];
  const { required: _all, ...rest } = withoutDefaults(schema);
  return {
    ...rest,
    ...(required.length ? { required } : {}),
    description: `${schema.description ? `${String(schema.description)} ` : ''}As listed: with \`fields=\` an item holds only \`_id\` and the chosen fields, so nothing else is required.`,
  };
}

export const json = (status: number, description: string, schema: Schema): Success => ({ status, description, schema });
export const noContent = (description: string): Success => ({ status: 204, description });

/** The reusable error responses, by status; each carries the contract's error body. */
const ERROR_RESPONSES: Record<number, { name: string; code: string; description: string; headers?: Record<string, Schema> }> = {
  400: { name: 'BadRequest', code: 'BAD_REQUEST', description: 'Malformed request: body not valid JSON or not an object, bad list query (limit, offset, sort, fields, unknown filter operator, over a list limit), malformed percent-encoding in a path segment (`%ZZ`), a bearer token and an `X-API-Key` sent together.' },
  401: { name: 'Unauthorized', code: 'UNAUTHORIZED', description: 'Token missing where one is needed, or malformed, expired, revoked, of a deleted user or of another workspace (a bad token is refused even where none is needed); wrong credentials.' },
  403: { name: 'Forbidden', code: 'FORBIDDEN', description: 'Valid token, insufficient rights (not an administrator, not the owner or a member), or an API key without the scope the request needs (`details.scope`).' },
  404: { name: 'NotFound', code: 'NOT_FOUND', description: 'Unknown workspace, route, collection or `{id}`.' },
  409: { name: 'Conflict', code: 'CONFLICT', description: 'Duplicate `_id`, duplicate email or name, unique index violated, or a state that forbids the change.' },
  413: { name: 'PayloadTooLarge', code: 'PAYLOAD_TOO_LARGE', description: 'JSON body over 1 MiB, simple upload over 50 MiB (both configurable).' },
  415: { name: 'UnsupportedMediaType', code: 'UNSUPPORTED_MEDIA_TYPE', description: 'The body is not of the content type this endpoint reads (application/json unless stated).' },
  422: { name: 'ValidationError', code: 'VALIDATION_ERROR', description: 'Parsed but breaks a rule: `details` names the `field` and the `reason` (and lists every failure in `errors`).' },
  429: {
    name: 'RateLimited', code: 'RATE_LIMITED', description: 'Too many failed sign-ins for this email within a minute.',
    headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
  },
  500: { name: 'Internal', code: 'INTERNAL', description: 'A bug: logged on the server with a request id; the body carries only that id.' },
  503: {
    name: 'Unavailable', code: 'UNAVAILABLE', description: 'The workspace is being imported or restored, or its data folder cannot be read or written (read-only, vanished, a store that failed to load): the reason is in the message; retry shortly.',
    headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
  },
  507: { name: 'InsufficientStorage', code: 'INSUFFICIENT_STORAGE', description: 'The disk is full: the change was not applied (reads still work).' },
};

export function errorResponses(): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const r of Object.values(ERROR_RESPONSES)) {
    const example = r.code === 'INTERNAL'
      ? { error: { code: r.code, message: 'Internal server error', details: { requestId: '6f1c...' } } }
      : { error: { code: r.code, message: r.description.split(':')[0], details: {} } };
    out[r.name] = {
      description: r.description,
      ...(r.headers ? { headers: r.headers } : {}),
      content: { 'application/json': { schema: ref('Error'), example } },
    };
  }
  return out;
}

/** The list query parameters, referenced by every list endpoint. */
export function listParameters(): Record<string, Schema> {
  return {
    limit: {
      name: 'limit', in: 'query', description: `Page size: default ${DEFAULT_LIMIT}, above ${MAX_LIMIT} is taken as ${MAX_LIMIT}; 0 returns only \`meta.total\`.`,
      schema: { type: 'integer', minimum: 0, default: DEFAULT_LIMIT },
    },
    offset: { name: 'offset', in: 'query', description: 'Items skipped from the start of the list.', schema: { type: 'integer', minimum: 0, default: 0 } },
    skipTotal: {
      name: 'skipTotal', in: 'query',
      description: '`true`: the total is not counted and `meta.total` is -1 (counting every match of a filter costs on large collections); `false` (default): `meta.total` is exact.',
      schema: { type: 'boolean', default: false },
    },
    sort: {
      name: 'sort', in: 'query', description: 'Comma-separated field paths; a leading `-` sorts descending: `sort=-createdAt,name`.',
      schema: { type: 'string' }, example: '-createdAt',
    },
    fields: {
      name: 'fields', in: 'query', description: 'Comma-separated field paths to return (plus `_id`): `fields=name,age`.',
      schema: { type: 'string' },
    },
    filter: {
      name: 'filter', in: 'query', style: 'deepObject', explode: true,
      description: `Equality filters, all of which must match: \`filter[field]=value\`. ${FILTER_DOC} `
        + 'Declared one level deep (field → value), so that clients\' default deepObject serializers can send it; '
        + 'operators are sent as `filter[field][$op]=value`, declared as parameters of their own for the top-level fields of each list\'s items; nested paths (`filter[address.city][$op]`) as in the description.',
      schema: { type: 'object', additionalProperties: FILTER_VALUE },
    },
  };
}

const FILTER_VALUE: Schema = { type: ['string', 'number', 'boolean'] };
const FILTER_DOC = `Operators: \`filter[field][$op]=value\` with ${FILTER_OPERATORS.filter((o) => o !== '$eq').map((o) => `\`${o}\``).join(', ')} (also \`$eq\`). `
  + '`$in` / `$nin` take comma-separated values; `$exists` takes `true` / `false`; `$contains` and `$startsWith` are case-insensitive on strings, '
  + 'and `$contains` on an array matches an element. Dot paths reach nested fields (`filter[address.city]=Paris`). '
  + 'Values are coerced by the field\'s schema type; without one, `25` / `true` / `null` match both the typed value and the string. '
  + 'Any other operator is a 400. Example: `filter[age][$gte]=25&filter[role]=admin`.';

/** Explicit query parameters `filter[key]` and `filter[key][$op]` for each of these keys (a
 *  collection's fields and system keys): plain names that any client's default serializer sends. */
export function filterParameters(keys: string[]): Schema[] {
  const out: Schema[] = [];
  for (const key of keys) {
    out.push({ name: `filter[${key}]`, in: 'query', description: `\`${key}\` equals this value`, schema: FILTER_VALUE });
    for (const op of FILTER_OPERATORS) {
      out.push({ name: `filter[${key}][${op}]`, in: 'query', description: `\`${key}\` ${OP_WORDS[op]}`, schema: FILTER_VALUE });
    }
  }
  return out;
}

/** Gives every list operation of these paths (a page of `XListItem`) the explicit filter
 *  parameters of X's top-level properties, unless it has them already (records.ts). */
export function addFilterParameters(paths: Record<string, Schema>, schemas: Record<string, Schema>): void {
  for (const item of Object.values(paths)) {
    const op = item.get as Schema | undefined;
    const page = ((op?.responses as Schema | undefined)?.['200'] as Schema | undefined)?.content as Schema | undefined;
    const items = (((page?.['application/json'] as Schema | undefined)?.schema as Schema | undefined)?.properties as Schema | undefined)?.data as Schema | undefined;
    const ref = ((items?.items as Schema | undefined)?.$ref as string | undefined) ?? '';
    const m = /^#\/components\/schemas\/(.+)ListItem$/.exec(ref);
    const params = (op?.parameters ?? []) as Schema[];
    if (!op || !m || params.some((p) => typeof p.name === 'string' && p.name.startsWith('filter['))) continue;
    const keys = Object.keys((schemas[m[1]]?.properties ?? {}) as Schema);
    op.parameters = [...params, ...filterParameters(keys)];
  }
}

const OP_WORDS: Record<(typeof FILTER_OPERATORS)[number], string> = {
  $eq: 'equals this value', $ne: 'differs from this value', $gt: 'is greater than this value', $gte: 'is at least this value',
  $lt: 'is less than this value', $lte: 'is at most this value', $in: 'is one of these comma-separated values',
  $nin: 'is none of these comma-separated values', $exists: 'is present (`true`) or absent (`false`)',
  $contains: 'contains this text (case-insensitive), or an array holds this element', $startsWith: 'starts with this text (case-insensitive)',
};

const BODY_METHODS = new Set<Method>(['post', 'put', 'patch']);

/** Methods whose requests write: a full disk answers them 507. */
const WRITE_METHODS = new Set<Method>(['post', 'put', 'patch', 'delete']);

/** One operation. */
export function operation(method: Method, spec: OpSpec): Schema {
  // Every operation: 400 for a bearer token and an X-API-Key sent together (and for a malformed
  // percent-encoding in the workspace id or a path parameter), 401 for a bad
  // credential, 403 for an API key without the scope the request needs (or on /auth, which no key
  // opens), 404 for an unknown workspace, 500 and 503.
  const statuses = new Set<number>([400, 401, 404, 500, 503, ...(spec.errors ?? [])]);
  if (!spec.anyKey) statuses.add(403);
  if (WRITE_METHODS.has(method)) statuses.add(507);
  if (spec.access === 'admin') statuses.add(403);
  if (spec.list) statuses.add(400);
  // Every POST/PUT/PATCH body goes through the JSON reader (raw-body routes say their own).
  if (BODY_METHODS.has(method) && !spec.rawBody) { statuses.add(400); statuses.add(413); statuses.add(415); }
  if (spec.body) statuses.add(422);

  const responses: Record<string, Schema> = {};
  for (const ok of Array.isArray(spec.ok) ? spec.ok : [spec.ok]) {
    const content = ok.content ?? (ok.schema ? { 'application/json': { schema: ok.schema } } : undefined);
    responses[String(ok.status)] = { description: ok.description, ...(ok.headers ? { headers: ok.headers } : {}), ...(content ? { content } : {}) };
  }
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const r = ERROR_RESPONSES[status];
    if (!r) throw new Error(`no error response for ${status}`);
    // A status the operation declares itself (tus's plain-text answers) stays as declared.
    responses[String(status)] ??= { $ref: `#/components/responses/${r.name}` };
  }

  const parameters = [
    ...(spec.list ? ['limit', 'offset', 'sort', 'fields', 'filter', 'skipTotal'].map((p) => ({ $ref: `#/components/parameters/${p}` })) : []),
    ...(spec.params ?? []),
  ];
  const requestBody = spec.rawBody
    ?? (spec.body ? { required: spec.bodyRequired ?? true, content: { 'application/json': { schema: spec.body } } } : undefined);
  return {
    operationId: spec.id,
    tags: [spec.tag],
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    ...(spec.security ? { security: spec.security } : securityOf(spec.access)),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/** The document requires the bearer token by default; open endpoints say so. */
function securityOf(access: Access): Schema {
  if (access === 'none') return { security: [] };
  if (access === 'optional') return { security: [{}, { bearerAuth: [] }, { apiKey: [] }] };
  return {};
}

const PARAM_DOC: Record<string, string> = {
  collection: 'Collection `_id`',
  id: 'The object\'s `_id`',
  channelId: 'Channel `_id`',
  userId: 'User `_id`',
  uploadId: 'tus upload id (the last segment of the `Location` of the creation request)',
};

/** A path item: its path parameters (from the template) once, then one operation per method. */
export function pathItem(path: string, ops: Partial<Record<Method, OpSpec>>): Schema {
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const item: Schema = {};
  if (names.length) {
    item.parameters = names.map((name) => ({
      name, in: 'path', required: true, description: PARAM_DOC[name] ?? name, schema: { type: 'string' },
    }));
  }
  for (const [method, spec] of Object.entries(ops) as Array<[Method, OpSpec]>) item[method] = operation(method, spec);
  return item;
}

/** PUT and PATCH are the same partial update wherever PUT is accepted. */
export function putAndPatch(spec: OpSpec): { put: OpSpec; patch: OpSpec } {
  return {
    put: spec,
    patch: { ...spec, id: `${spec.id}.patch`, summary: `${spec.summary} (PATCH: same as PUT)` },
  };
}
