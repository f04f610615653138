import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Validator } from '@seriousme/openapi-schema-validator';

// ajv-formats is CommonJS with a default export.
type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;
import { request } from 'node:http';
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modules } from '../index.js';
import { startTestServer, type TestServer } from '../../test/harness.js';

let t: TestServer;
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { await t.close(); });

type Json = any;
const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'] as const;

async function getDoc(): Promise<Json> {
  const res = await t.req('GET', '/openapi.json', { token: null });
  expect(res.status).toBe(200);
  return res.body;
}

/** `GET /database/{collection}/{id}` → `GET /database/{}/{}`: parameter names may differ from the reference's. */
const shape = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;

function operationsOf(doc: Json): Array<{ method: string; path: string; op: Json }> {
  const out: Array<{ method: string; path: string; op: Json }> = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of METHODS) if (item[method]) out.push({ method, path, op: item[method] });
  }
  return out;
}

function resolvePointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: Json = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** Structural problems: unresolved $refs, operations without responses, undeclared path
 *  parameters, duplicate operationIds, unknown tags or security schemes. */
function structuralProblems(doc: Json): string[] {
  const problems: string[] = [];
  const walk = (node: unknown, where: string) => {
    if (Array.isArray(node)) { node.forEach((n, i) => walk(n, `${where}/${i}`)); return; }
    if (node === null || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && (typeof v !== 'string' || resolvePointer(doc, v) === undefined)) problems.push(`${where}: unresolved $ref ${String(v)}`);
      walk(v, `${where}/${k}`);
    }
  };
  walk(doc, '#');
  const ids = new Set<string>();
  const tags = new Set((doc.tags ?? []).map((tag: Json) => tag.name));
  const schemes = new Set(Object.keys(doc.components?.securitySchemes ?? {}));
  for (const { method, path, op } of operationsOf(doc)) {
    const where = `${method.toUpperCase()} ${path}`;
    if (!op.responses || Object.keys(op.responses).length === 0) problems.push(`${where}: no responses`);
    if (!Object.keys(op.responses ?? {}).some((s) => /^[23]\d\d$/.test(s))) problems.push(`${where}: no success response`);
    if (!op.operationId || ids.has(op.operationId)) problems.push(`${where}: missing or duplicate operationId ${op.operationId}`);
    ids.add(op.operationId);
    for (const tag of op.tags ?? []) if (!tags.has(tag)) problems.push(`${where}: undeclared tag ${tag}`);
    for (const req of op.security ?? []) for (const name of Object.keys(req)) if (!schemes.has(name)) problems.push(`${where}: unknown scheme ${name}`);
    const declared = new Set([...(doc.paths[path].parameters ?? []), ...(op.parameters ?? [])]
      .map((p: Json) => (p.$ref ? resolvePointer(doc, p.$ref) : p) as Json).filter((p) => p.in === 'path').map((p) => p.name));
    for (const m of path.matchAll(/\{([^}]+)\}/g)) if (!declared.has(m[1])) problems.push(`${where}: path parameter ${m[1]} not declared`);
  }
  // Templated paths that differ only in parameter names are the same path (the OpenAPI 3.1 specification, section 4.8.8, Paths Object).
  const templates = new Map<string, string>();
  for (const path of Object.keys(doc.paths)) {
    const key = path.replace(/\{[^}]+\}/g, '{}');
    if (templates.has(key)) problems.push(`${path} and ${templates.get(key)} are the same templated path`);
    templates.set(key, path);
  }
  return problems;
}

// Every endpoint of the reference's tables (api-reference.md), with PATCH wherever PUT is accepted.
const REFERENCE = [
  'GET /database', 'POST /database', 'PUT /database/{id}', 'PUT /database', 'DELETE /database/{id}',
  'GET /database/{collection}', 'GET /database/{collection}/{id}', 'POST /database/{collection}', 'PUT /database/{collection}/{id}', 'DELETE /database/{collection}/{id}',
  'GET /database/{collection}/fields', 'POST /database/{collection}/fields', 'PUT /database/{collection}/fields/{id}', 'DELETE /database/{collection}/fields/{id}',
  'GET /database/{collection}/views', 'POST /database/{collection}/views', 'PUT /database/{collection}/views/{id}', 'DELETE /database/{collection}/views/{id}',
  'GET /database/{collection}/indexes', 'POST /database/{collection}/indexes', 'DELETE /database/{collection}/indexes/{id}',
  'POST /auth/register', 'POST /auth/login', 'POST /auth/refresh', 'POST /auth/logout', 'POST /auth/forgot-password', 'POST /auth/reset-password',
  'GET /auth/me', 'PUT /auth/me', 'PUT /auth/change-password', 'POST /auth/impersonate/{userId}',
  'GET /users', 'GET /users/{id}', 'POST /users', 'PUT /users/{id}', 'DELETE /users/{id}',
  'POST /storage/upload', 'POST /storage/upload/tus', 'GET /storage', 'GET /storage/{id}', 'GET /storage/{id}/download', 'DELETE /storage/{id}',
  'GET /chats/{channelId}/messages', 'POST /chats/{channelId}/messages', 'PUT /chats/messages/{id}', 'DELETE /chats/messages/{id}',
  'GET /chats/channels', 'POST /chats/channels', 'PUT /chats/channels/{id}', 'DELETE /chats/channels/{id}',
  'GET /chats/{channelId}/members', 'POST /chats/{channelId}/members', 'DELETE /chats/{channelId}/members/{userId}',
  'GET /webhooks', 'POST /webhooks', 'PUT /webhooks/{id}', 'DELETE /webhooks/{id}', 'GET /webhooks/{id}/logs',
  'GET /scenarios', 'POST /scenarios', 'PUT /scenarios/{id}', 'DELETE /scenarios/{id}', 'POST /scenarios/{id}/activate', 'POST /scenarios/{id}/deactivate', 'GET /scenarios/{id}/executions',
  'GET /credentials', 'POST /credentials', 'PUT /credentials/{id}', 'DELETE /credentials/{id}',
];
// What the server serves beyond the reference's tables (docs of each group).
const ADDITIONS = [
  'GET /database/{collection}/fields/{id}', 'GET /database/{collection}/views/{id}', 'GET /database/{collection}/indexes/{id}',
  'HEAD /storage/upload/tus/{uploadId}', 'PATCH /storage/upload/tus/{uploadId}', 'DELETE /storage/upload/tus/{uploadId}', 'OPTIONS /storage/upload/tus',
  'HEAD /storage/{id}/download', 'GET /chats/channels/{id}', 'GET /chats/messages/{id}', 'GET /webhooks/{id}', 'POST /webhooks/{id}/test',
  'GET /scenarios/{id}', 'POST /scenarios/{id}/run', 'GET /credentials/{id}', 'GET /openapi.json',
];

/** Validates each [schema name, value] against the document's components with a real JSON Schema
 *  2020-12 validator (ajv, the dialect of OpenAPI 3.1); returns the failures as "name: path: message". */
function schemaFailures(doc: Json, cases: Array<[string, unknown]>): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'openapi.json' } as Record<string, unknown>);
  const out: string[] = [];
  for (const [name, value] of cases) {
    const validate = ajv.compile({ $ref: `openapi.json#/components/schemas/${name}` });
    if (validate(value)) continue;
    for (const e of validate.errors ?? []) {
      const where = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
      const message = e.keyword === 'required' ? `'${(e.params as { missingProperty: string }).missingProperty}' is a required property` : e.message ?? e.keyword;
      out.push(`${name}: ${where}: ${message}`);
    }
  }
  return out;
}

describe('GET /openapi.json', () => {
  it('is served without a token, as OpenAPI 3.1, never cached', async () => {
    const res = await t.req('GET', '/openapi.json', { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info).toMatchObject({ title: expect.stringContaining('demo'), version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(res.body.servers).toEqual([{ url: t.api, description: expect.any(String) }]);
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(res.body.security).toEqual([{ bearerAuth: [] }, { apiKey: [] }]);
    expect(res.body.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(res.body.components.securitySchemes.tokenQuery).toMatchObject({ type: 'apiKey', in: 'query', name: 'token' });
    expect(res.body.info.description).toContain(`${t.api.replace(/^http/, 'ws')}/realtime`);
    // An admin token changes nothing.
    expect((await t.req('GET', '/openapi.json')).body).toEqual(res.body);
  });

  it('builds the server URL from the request\'s Host', async () => {
    const port = new URL(t.url).port;
    const body = await new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/api/app/demo/openapi.json', headers: { host: `api.localhost:${port}` } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c) => { text += c; }).on('end', () => resolve(text));
      });
      req.on('error', reject).end();
    });
    const doc = JSON.parse(body);
    expect(doc.servers[0].url).toBe(`http://api.localhost:${port}/api/app/demo`);
    expect(doc.info.description).toContain(`ws://api.localhost:${port}/api/app/demo/realtime`);
  });

  it('is structurally sound: $refs resolve, every operation answers, path parameters are declared', async () => {
    const doc = await getDoc();
    expect(structuralProblems(doc)).toEqual([]);
  });

  it('passes a real OpenAPI 3.1 validator (@seriousme/openapi-schema-validator)', async () => {
    await t.req('POST', '/database', { body: { _id: 'checked', setting: { read: 'private', write: 'private', update: 'private' } } });
    await t.req('POST', '/database/checked/fields', { body: { _id: 'kind', type: 'enum', required: true, options: { values: ['a', 'b'] } } });
    const doc = await getDoc();
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('matches what the server really answers (objects validated against their schemas)', async () => {
    await t.req('POST', '/database', { body: { _id: 'shop', setting: { read: 'public', write: 'public', update: 'private' } } });
    for (const f of [
      { _id: 'sku', type: 'string', required: true }, { _id: 'price', type: 'number' }, { _id: 'kind', type: 'enum', options: { values: ['a', 'b'] } },
      { _id: 'at', type: 'date' }, { _id: 'tags', type: 'array' }, { _id: 'buyer', type: 'user' },
    ]) expect((await t.req('POST', '/database/shop/fields', { body: f })).status).toBe(201);
    await t.req('POST', '/database/shop/views', { body: { _id: 'cheap', filter: { price: { $lt: 10 } } } });
    await t.req('POST', '/database/shop/indexes', { body: { fields: ['sku'], unique: true } });
    const me = (await t.req('GET', '/auth/me')).body;
    const record = (await t.req('POST', '/database/shop', { body: { sku: 'X1', price: 9.5, kind: null, at: '2024-05-01T10:00:00Z', tags: ['t'], buyer: me._id, more: { free: 1 } } })).body;
    const anonymous = (await t.req('POST', '/database/shop', { token: null, body: { sku: 'X2' } })).body;
    const login = (await t.req('POST', '/auth/login', { token: null, body: { email: t.adminEmail, password: t.adminPassword } })).body;
    const bob = await t.user('Bob');
    const channel = (await t.req('POST', '/chats/channels', { body: { name: 'general' } })).body;
    const member = (await t.req('POST', `/chats/${channel._id}/members`, { body: { userId: bob._id } })).body;
    const message = (await t.req('POST', `/chats/${channel._id}/messages`, { body: { text: 'hi' } })).body;
    const webhook = (await t.req('POST', '/webhooks', { body: { name: 'h', url: 'http://127.0.0.1:9/x', events: ['record.*'], active: false } })).body;
    const secret = (await t.req('POST', '/credentials', { body: { name: 'API_KEY', value: 'v' } })).body;
    const scenario = (await t.req('POST', '/scenarios', { body: { name: 's', steps: [{ type: 'delay', ms: 0 }] } })).body;
    const execution = (await t.req('POST', `/scenarios/${scenario._id}/run`)).body;
    const form = new FormData();
    form.append('file', new Blob(['hello']), 'a.txt');
    const file = await (await fetch(`${t.api}/storage/upload`, { method: 'POST', headers: { authorization: `Bearer ${t.adminToken}` }, body: form })).json();
    const invalid = (await t.req('POST', '/database/shop', { body: { price: 'x' } })).body;

    const doc = await getDoc();
    const cases: Array<[string, unknown]> = [
      ['Record.shop', record], ['Record.shop', anonymous], ['RecordCreate.shop', { sku: 'X3', kind: 'a' }], ['Record', record],
      ['Collection', (await t.req('GET', '/database')).body.data.find((c: Json) => c._id === 'shop')],
      ['User', me], ['LoginResult', login], ['Channel', channel], ['Member', member], ['Message', message],
      ['WebhookCreated', webhook], ['Webhook', (await t.req('GET', `/webhooks/${webhook._id}`)).body], ['Secret', secret],
      ['Scenario', scenario], ['Execution', execution], ['File', file], ['Error', invalid],
      ['Error', (await t.req('GET', '/database/shop/nope')).body], ['Error', (await t.req('GET', '/users', { token: null })).body],
    ];
    expect(cases.filter(([, value]) => value === undefined).map(([name]) => name)).toEqual([]);
    expect(schemaFailures(doc, cases)).toEqual([]);
    // The validator does reject what the schema forbids.
    expect(schemaFailures(doc, [['RecordCreate.shop', { price: 'x' }]])).toEqual([expect.stringContaining("'sku' is a required property"), expect.stringMatching(/^RecordCreate.shop: price: /)]);
    expect(schemaFailures(doc, [['Record.shop', { ...record, kind: 'c' }]])).toEqual([expect.stringMatching(/^Record.shop: kind: /)]);
  });

  it('describes every endpoint of the reference, PATCH wherever PUT is, and the additions', async () => {
    const doc = await getDoc();
    const served = new Set(operationsOf(doc).map(({ method, path }) => shape(method, path)));
    const expected = [...REFERENCE, ...REFERENCE.filter((e) => e.startsWith('PUT ')).map((e) => e.replace('PUT', 'PATCH')), ...ADDITIONS];
    expect(expected.filter((e) => !served.has(shape(e.split(' ')[0], e.split(' ')[1])))).toEqual([]);
  });

  it('documents every route the modules mount on the workspace API, and no other', async () => {
    const doc = await getDoc();
    const documented = new Set(operationsOf(doc).filter(({ path }) => !/^\/database\/[^{]/.test(path)).map(({ method, path }) => shape(method, path)));
    const mounted = new Set<string>();
    for (const m of modules) {
      const router = Router();
      m.workspaceRoutes?.(router, t.srv.ctx);
      for (const layer of router.stack as Array<{ route?: { path: string | string[]; methods: Record<string, boolean> } }>) {
        if (!layer.route) continue;
        for (const path of [layer.route.path].flat()) {
          const template = path.replace(/:[A-Za-z]+/g, '{}').replace(/\*[A-Za-z]+/g, '{}');
          for (const method of Object.keys(layer.route.methods)) {
            // router.all (tus): the methods tus answers, as documented.
            if (method === '_all') { expect([...documented].some((d) => d.endsWith(` ${template}`)), template).toBe(true); continue; }
            mounted.add(shape(method, template));
          }
        }
      }
    }
    expect([...mounted].filter((r) => !documented.has(r))).toEqual([]);
    // Express answers HEAD with the GET handler; PATCH is documented wherever PUT is.
    const tus = /\/storage\/upload\/tus/;
    const implied = (d: string) => (d.startsWith('HEAD ') && mounted.has(d.replace('HEAD', 'GET'))) || (d.startsWith('PATCH ') && mounted.has(d.replace('PATCH', 'PUT')));
    expect([...documented].filter((d) => !mounted.has(d) && !tus.test(d) && !implied(d))).toEqual([]);
  });

  it('gives list endpoints the list parameters and every operation the contract\'s errors', async () => {
    const doc = await getDoc();
    for (const response of Object.values<Json>(doc.components.responses)) {
      expect(response.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    }
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual(expect.arrayContaining(['VALIDATION_ERROR', 'NOT_FOUND', 'RATE_LIMITED']));
    expect(doc.components.parameters.filter.description).toMatch(/\$gte.*\$startsWith/);

    const lists = ['GET /database', 'GET /database/{}', 'GET /users', 'GET /storage', 'GET /chats/channels', 'GET /chats/{}/messages', 'GET /chats/{}/members',
      'GET /webhooks', 'GET /webhooks/{}/logs', 'GET /scenarios', 'GET /scenarios/{}/executions', 'GET /credentials'];
    const ops = operationsOf(doc);
    for (const name of lists) {
      const found = ops.find(({ method, path }) => shape(method, path) === name);
      expect(found, name).toBeDefined();
      const refs = (found!.op.parameters ?? []).map((p: Json) => p.$ref);
      for (const p of ['limit', 'offset', 'sort', 'fields', 'filter']) expect(refs, `${name} ${p}`).toContain(`#/components/parameters/${p}`);
      expect(Object.keys(found!.op.responses)).toContain('400');
    }
    for (const { method, path, op } of ops) {
      for (const status of ['401', '404', '503']) expect(Object.keys(op.responses), `${method} ${path}`).toContain(status);
    }
    const byName = (name: string) => ops.find(({ method, path }) => shape(method, path) === name)!.op;
    expect(Object.keys(byName('POST /auth/login').responses)).toEqual(expect.arrayContaining(['200', '400', '413', '415', '422', '429']));
    expect(byName('POST /auth/login').security).toEqual([]);
    expect(Object.keys(byName('GET /users').responses)).toContain('403');
    expect(Object.keys(byName('POST /users').responses)).toEqual(expect.arrayContaining(['201', '403', '409', '422']));
    expect(Object.keys(byName('DELETE /chats/{}/members/{}').responses)).toContain('204');
    expect(Object.keys(byName('POST /storage/upload').responses)).toEqual(expect.arrayContaining(['201', '413', '415', '422']));
    expect(byName('POST /storage/upload').requestBody.content['multipart/form-data']).toBeDefined();
    expect(byName('POST /auth/register').requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RegisterBody' });
    expect(doc.components.schemas.RegisterBody.required).toEqual(['email', 'password']);
    for (const name of ['User', 'LoginResult', 'Collection', 'Field', 'View', 'Index', 'File', 'Channel', 'Member', 'Message', 'Webhook', 'WebhookLog', 'Scenario', 'Execution', 'Secret']) {
      expect(doc.components.schemas[name], name).toMatchObject({ type: 'object' });
    }
    expect(doc.components.schemas.Secret.properties.value).toBeUndefined();
  });

  it('has paths and a record schema for each collection, built from its fields', async () => {
    expect((await t.req('POST', '/database', { body: { _id: 'people', name: 'People', setting: { read: 'public', write: 'private', update: 'only-user' } } })).status).toBe(201);
    const fields = [
      { _id: 'name', type: 'string', required: true, options: { maxLength: 80 } },
      { _id: 'email', type: 'email', unique: true },
      { _id: 'age', type: 'integer', options: { min: 0 } },
      { _id: 'score', type: 'number' },
      { _id: 'role', type: 'enum', required: true, default: 'member', options: { values: ['admin', 'member'] } },
      { _id: 'active', type: 'boolean' },
      { _id: 'born', type: 'date' },
      { _id: 'site', type: 'url' },
      { _id: 'extra', type: 'json' },
      { _id: 'tags', type: 'array' },
      { _id: 'friend', type: 'reference', options: { collection: 'people' } },
      { _id: 'avatar', type: 'file' },
      { _id: 'account', type: 'user' },
    ];
    for (const f of fields) expect((await t.req('POST', '/database/people/fields', { body: f })).status).toBe(201);

    const doc = await getDoc();
    const list = doc.paths['/database/people'];
    const one = doc.paths['/database/people/{id}'];
    expect(Object.keys(list)).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(one)).toEqual(expect.arrayContaining(['get', 'put', 'patch', 'delete']));
    // List items: with `fields=` only `_id` and the chosen fields come, so only `_id` is required.
    expect(list.get.responses['200'].content['application/json'].schema.properties.data.items).toEqual({ $ref: '#/components/schemas/RecordListItem.people' });
    expect(doc.components.schemas['RecordListItem.people'].required).toEqual(['_id']);
    expect(Object.keys(doc.components.schemas['RecordListItem.people'].properties)).toEqual(Object.keys(doc.components.schemas['Record.people'].properties));
    // A default is a keyword where the server answers (the record), words where the client sends.
    expect(doc.components.schemas['RecordListItem.people'].properties.role).toEqual({ enum: ['admin', 'member'], description: 'Default: `"member"`.' });
    expect(doc.components.schemas['RecordCreate.people'].properties.role.default).toBeUndefined();
    expect(doc.components.schemas['RecordUpdate.people'].properties.role.default).toBeUndefined();
    // Filters: plain parameter names per field and operator, which default serializers send.
    const filterNames = list.get.parameters.map((p: Json) => p.name ?? p.$ref);
    expect(filterNames).toEqual(expect.arrayContaining(['filter[age]', 'filter[age][$gte]', 'filter[name][$contains]', 'filter[createdAt][$lt]', 'view']));
    expect(list.get.security).toEqual([{}, { bearerAuth: [] }, { apiKey: [] }]); // public read
    expect(list.post.security).toBeUndefined(); // private write: the document's default (bearer)
    expect(Object.keys(one.put.responses)).toContain('403'); // only-user update
    expect(Object.keys(one.get.responses)).toContain('400'); // a malformed percent-encoded id
    expect(Object.keys(one.delete.responses)).toEqual(expect.arrayContaining(['403', '500', '507']));
    expect(one.get.responses.default).toBeUndefined();
    expect(list.post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RecordCreate.people' });
    expect(doc.tags.map((tag: Json) => tag.name)).toContain('records: people');

    const record = doc.components.schemas['Record.people'];
    expect(record.required).toEqual(['_id', 'name', 'role', 'createdAt', 'updatedAt']);
    expect(record.additionalProperties).toBe(true);
    expect(record.properties).toMatchObject({
      _id: { type: 'string' }, _owner: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' }, updatedAt: { type: 'string', format: 'date-time' },
      name: { type: 'string', maxLength: 80 },
      email: { type: ['string', 'null'], format: 'email' },
      age: { type: ['integer', 'null'], minimum: 0 },
      score: { type: ['number', 'null'] },
      role: { enum: ['admin', 'member'], default: 'member' },
      active: { type: ['boolean', 'null'] },
      born: { type: ['string', 'null'], pattern: expect.any(String) },
      site: { type: ['string', 'null'], format: 'uri' },
      tags: { type: ['array', 'null'] },
      friend: { type: ['string', 'null'] },
      avatar: { type: ['string', 'null'] },
      account: { type: ['string', 'null'] },
    });
    expect(record.properties.extra.type).toBeUndefined(); // json: any value
    // A default fills an absent field: required on the record, not in the create body.
    expect(doc.components.schemas['RecordCreate.people'].required).toEqual(['name']);
    expect(doc.components.schemas['RecordCreate.people'].properties).toMatchObject({ createdAt: false, updatedAt: false });
    expect(doc.components.schemas['RecordUpdate.people'].required).toBeUndefined();

    // Fresh per request: a field added now shows at once; a deleted collection goes.
    await t.req('POST', '/database/people/fields', { body: { _id: 'nick', type: 'string' } });
    expect((await getDoc()).components.schemas['Record.people'].properties.nick).toEqual({ type: ['string', 'null'] });
    expect((await t.req('DELETE', '/database/people')).status).toBe(204);
    const after = await getDoc();
    expect(after.paths['/database/people']).toBeUndefined();
    expect(after.components.schemas['Record.people']).toBeUndefined();
  });

  it('gives a schemaless collection an open record schema', async () => {
    await t.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'private', write: 'private', update: 'private' } } });
    const doc = await getDoc();
    const record = doc.components.schemas['Record.notes'];
    expect(Object.keys(record.properties)).toEqual(['_id', '_owner', 'createdAt', 'updatedAt']);
    expect(record.additionalProperties).toBe(true);
    expect(doc.components.schemas['RecordCreate.notes'].additionalProperties).toBe(true);
    expect(doc.paths['/database/notes'].get.security).toBeUndefined(); // private by default
    expect(structuralProblems(doc)).toEqual([]);
  });

  it('answers 404 in the contract\'s error shape for an unknown workspace', async () => {
    const res = await fetch(`${t.url}/app/nope/openapi.json`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String), details: {} } });
  });
});
