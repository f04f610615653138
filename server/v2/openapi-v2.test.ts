// The v2 OpenAPI document: a valid OpenAPI 3.1 document, and true to what the v2 face answers
// (real answers validated against its response schemas with Ajv, headers it promises present).
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/harness.js';
import { makeCollection, v2Client, type V2Res } from './v2-client.js';

type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;
type Json = any;

let t: TestServer;
let v2: ReturnType<typeof v2Client>;
let doc: Json;
let ajv: Ajv2020;

beforeAll(async () => {
  t = await startTestServer();
  v2 = v2Client(t);
  await makeCollection(t, 'books', [{ _id: 'title', name: 'Title', type: 'string', required: true }, { _id: 'pages', name: 'Pages', type: 'integer' }]);
  const res = await fetch(`${t.url}/v2/app/demo/openapi.json`);
  expect(res.status).toBe(200);
  doc = await res.json();
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'v2.json' });
});
afterAll(async () => { await t?.close(); });

/** The documented answer of (path template, method, status), $refs followed. */
function documented(path: string, method: string, status: number): Json {
  let r = doc.paths[path]?.[method]?.responses?.[String(status)];
  if (!r) throw new Error(`${method.toUpperCase()} ${path} documents no ${status}`);
  if (r.$ref) r = doc.components.responses[r.$ref.split('/').pop()];
  return r;
}

function expectDocumented(res: V2Res, path: string, method: string): void {
  const r = documented(path, method, res.status);
  for (const name of Object.keys(r.headers ?? {})) {
    if (name === 'Location' || name === 'Retry-After' || name === 'ETag' || name === 'Cache-Control' || name.startsWith('X-RateLimit')) {
      expect(res.headers.get(name), `${method} ${path} ${res.status} header ${name}`).not.toBeNull();
    }
  }
  const schema = r.content?.['application/json']?.schema;
  if (!schema) { expect(res.text).toBe(''); return; }
  const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"v2.json#/components/')));
  const ok = validate(res.body);
  expect(ok ? [] : validate.errors, `${method.toUpperCase()} ${path} ${res.status}: ${res.text.slice(0, 300)}`).toEqual([]);
}

describe('the v2 OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document describing the v2 face', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers[0].url).toBe(`${t.url}/v2/app/demo`);
    expect(doc.paths['/batch'].post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/V2BatchRequest');
    expect(doc.paths['/database'].put).toBeUndefined();
    const list = doc.paths['/database/books'].get;
    expect(list.parameters.map((p: Json) => p.$ref ?? p.name)).toContain('#/components/parameters/cursor');
    expect(doc.components.parameters.filter.description).toContain('filter[$or]');
    const put = doc.paths['/database/books/{id}'].put;
    expect(put.summary).toMatch(/^Replace/);
    expect(put.parameters.map((p: Json) => p.$ref)).toContain('#/components/parameters/ifMatch');
    expect(put.responses['412']).toBeDefined();
    expect(doc.paths['/database/books/{id}'].get.responses['200'].headers.ETag).toBeDefined();
    expect(doc.paths['/users'].get.responses['429']).toBeDefined();
    // v1's document is left as it was.
    const v1 = await (await fetch(`${t.url}/app/demo/openapi.json`)).json();
    expect(v1.servers[0].url).toBe(`${t.url}/app/demo`);
    expect(v1.paths['/batch']).toBeUndefined();
    // Access: API keys, OAuth clients and protocol, GraphQL, and the two schemes.
    for (const path of ['/api-keys', '/api-keys/{id}', '/oauth/clients', '/oauth/clients/{id}', '/oauth/authorize', '/oauth/token', '/oauth/revoke', '/oauth/.well-known/oauth-authorization-server', '/graphql']) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(Object.keys(doc.paths['/api-keys']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api-keys/{id}']).sort()).toEqual(['delete', 'get']);
    expect(Object.keys(doc.paths['/graphql']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/oauth/token'].post.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    const oauth2 = doc.components.securitySchemes.oauth2;
    expect(oauth2.type).toBe('oauth2');
    expect(oauth2.flows.authorizationCode.authorizationUrl).toBe(`${t.url}/v2/app/demo/oauth/authorize`);
    expect(oauth2.flows.authorizationCode.tokenUrl).toBe(`${t.url}/v2/app/demo/oauth/token`);
    expect(oauth2.flows.clientCredentials.tokenUrl).toBe(`${t.url}/v2/app/demo/oauth/token`);
    expect(Object.keys(oauth2.flows.clientCredentials.scopes)).toHaveLength(9);
    expect(Object.keys(oauth2.flows.authorizationCode.scopes)).toContain('automation:admin');
  });

  it('matches what the server really answers', async () => {
    const created = await v2('POST', '/database/books', { body: { title: 'Dune', pages: 412 } });
    expectDocumented(created, '/database/books', 'post');
    const id = created.body.data._id;
    const one = await v2('GET', `/database/books/${id}`);
    expectDocumented(one, '/database/books/{id}', 'get');
    expectDocumented(await v2('GET', `/database/books/${id}`, { headers: { 'if-none-match': one.headers.get('etag')! } }), '/database/books/{id}', 'get');
    expectDocumented(await v2('GET', '/database/books?limit=1'), '/database/books', 'get');
    expectDocumented(await v2('GET', '/database/{collection}'.replace('{collection}', 'books')), '/database/books', 'get');
    expectDocumented(await v2('GET', '/database/books/missing'), '/database/books/{id}', 'get');
    expectDocumented(await v2('PUT', `/database/books/${id}`, { body: { title: 'Dune Messiah' } }), '/database/books/{id}', 'put');
    expectDocumented(await v2('PATCH', `/database/books/${id}`, { body: { pages: 1 }, headers: { 'if-match': '"stale"' } }), '/database/books/{id}', 'patch');
    expectDocumented(await v2('PUT', `/database/books/${id}`, { body: { pages: 2 } }), '/database/books/{id}', 'put');
    expectDocumented(await v2('GET', '/users'), '/users', 'get');
    expectDocumented(await v2('GET', '/auth/me'), '/auth/me', 'get');
    expectDocumented(await v2('GET', '/database'), '/database', 'get');
    expectDocumented(await v2('GET', '/database/books?cursor=nonsense'), '/database/books', 'get');
    expectDocumented(await v2('DELETE', `/database/books/${id}`), '/database/books/{id}', 'delete');
    const batch = await fetch(`${t.url}/v2/batch`, {
      method: 'POST', headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ operations: [{ method: 'GET', path: '/app/demo/database/books' }] }),
    });
    const text = await batch.text();
    expectDocumented({ status: batch.status, headers: batch.headers, text, body: JSON.parse(text) }, '/batch', 'post');
  });

  it('says PUT replaces in every group: the request bodies mark the required fields; real answers match', async () => {
    const bodyOf = (path: string, method: string): Json => {
      const schema = doc.paths[path][method].requestBody.content['application/json'].schema;
      return schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
    };
    const required: Record<string, string[]> = {
      '/webhooks/{id}': ['events', 'name', 'url'], '/credentials/{id}': ['name'], '/scenarios/{id}': ['name'], '/users/{id}': ['email'],
      '/chats/messages/{id}': ['text'], '/database/{collection}': ['setting'], '/database/{collection}/fields/{id}': ['type'],
      '/auth/me': [], '/chats/channels/{id}': [], '/database/{collection}/views/{id}': [],
    };
    for (const [path, names] of Object.entries(required)) {
      const put = doc.paths[path].put;
      expect(put.summary, path).toMatch(/^Replace/);
      expect(put.description, path).toMatch(/^Whole replacement/);
      expect(put.description, path).not.toMatch(/Partial/);
      expect([...(bodyOf(path, 'put').required ?? [])].sort(), path).toEqual(names);
      expect(bodyOf(path, 'patch').required ?? [], path).toEqual([]); // PATCH merges: nothing required
      expect(doc.paths[path].patch.summary, path).toMatch(/\(merge the fields sent\)$/);
    }
    expect(doc.components.schemas.SecretReplace.properties.value).toBeDefined();
    expect(doc.paths['/auth/change-password'].put.summary).not.toMatch(/^Replace/); // an action, not a resource

    const hook = await v2('POST', '/webhooks', { body: { name: 'doc', url: 'http://127.0.0.1:9/d', events: ['*'], filter: { collection: 'books' } } });
    expectDocumented(await v2('PUT', `/webhooks/${hook.body.data._id}`, { body: { name: 'doc2', url: 'http://127.0.0.1:9/d', events: ['*'] } }), '/webhooks/{id}', 'put');
    const missing = await v2('PUT', `/webhooks/${hook.body.data._id}`, { body: { name: 'doc3' } });
    expect(missing.status).toBe(422);
    expectDocumented(missing, '/webhooks/{id}', 'put');
    const secret = await v2('POST', '/credentials', { body: { name: 'DOC_SECRET', value: 'v' } });
    expectDocumented(await v2('PUT', `/credentials/${secret.body.data._id}`, { body: { name: 'DOC_SECRET' } }), '/credentials/{id}', 'put');
    const scenario = await v2('POST', '/scenarios', { body: { name: 'doc' } });
    expectDocumented(await v2('PUT', `/scenarios/${scenario.body.data._id}`, { body: { name: 'doc2', description: 'd' } }), '/scenarios/{id}', 'put');
    const user = await v2('POST', '/users', { body: { email: 'doc-user@example.test', password: 'doc-password-1', name: 'Doc' } });
    expectDocumented(await v2('PUT', `/users/${user.body.data._id}`, { body: { email: 'doc-user@example.test', team: 'x' } }), '/users/{id}', 'put');
    const member = await t.user('DocMember');
    expectDocumented(await v2('PUT', '/auth/me', { token: member.token, body: { name: 'Doc Member' } }), '/auth/me', 'put');
    const channel = await v2('POST', '/chats/channels', { body: { name: 'doc', description: 'd' } });
    expectDocumented(await v2('PUT', `/chats/channels/${channel.body.data._id}`, { body: { name: 'doc2' } }), '/chats/channels/{id}', 'put');
    const message = await v2('POST', `/chats/${channel.body.data._id}/messages`, { body: { text: 'hi' } });
    expectDocumented(await v2('PUT', `/chats/messages/${message.body.data._id}`, { body: { text: 'edited' } }), '/chats/messages/{id}', 'put');
    expectDocumented(await v2('PUT', '/database/books', { body: { name: 'Books', setting: { read: 'public', write: 'private', update: 'private' } } }), '/database/{collection}', 'put');
    expectDocumented(await v2('PUT', '/database/books/fields/pages', { body: { type: 'integer' } }), '/database/{collection}/fields/{id}', 'put');
    await v2('POST', '/database/books/views', { body: { _id: 'short', sort: 'pages' } });
    expectDocumented(await v2('PUT', '/database/books/views/short', { body: { name: 'Short' } }), '/database/{collection}/views/{id}', 'put');
  });

  it('matches the API keys, OAuth and GraphQL answers', async () => {
    const key = await v2('POST', '/api-keys', { body: { name: 'ci', scopes: ['database:read'] } });
    expect(key.status).toBe(201);
    expectDocumented(key, '/api-keys', 'post');
    expectDocumented(await v2('POST', '/api-keys', { body: { name: 'ci', scopes: ['nope'] } }), '/api-keys', 'post');
    expectDocumented(await v2('GET', '/api-keys'), '/api-keys', 'get');
    expectDocumented(await v2('GET', `/api-keys/${key.body.data._id}`), '/api-keys/{id}', 'get');
    expectDocumented(await v2('GET', '/api-keys', { token: null, headers: { 'x-api-key': key.body.data.key } }), '/api-keys', 'get');
    expectDocumented(await v2('DELETE', `/api-keys/${key.body.data._id}`), '/api-keys/{id}', 'delete');
    expectDocumented(await v2('GET', `/api-keys/${key.body.data._id}`), '/api-keys/{id}', 'get');

    const client = await v2('POST', '/oauth/clients', { body: { name: 'cli', redirectUris: ['http://127.0.0.1:9/cb'], scopes: ['database:read'], confidential: true } });
    expect(client.status).toBe(201);
    expect(typeof client.body.data.clientSecret).toBe('string');
    expectDocumented(client, '/oauth/clients', 'post');
    expectDocumented(await v2('GET', '/oauth/clients'), '/oauth/clients', 'get');
    expectDocumented(await v2('GET', `/oauth/clients/${client.body.data._id}`), '/oauth/clients/{id}', 'get');

    const form = async (path: string, fields: Record<string, string>) => {
      const res = await fetch(`${t.url}/v2/app/demo${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
      const text = await res.text();
      return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
    };
    const creds = { client_id: client.body.data._id, client_secret: client.body.data.clientSecret };
    const token = await form('/oauth/token', { grant_type: 'client_credentials', scope: 'database:read', ...creds });
    expect(token.status).toBe(200);
    expectDocumented(token, '/oauth/token', 'post');
    const bad = await form('/oauth/token', { grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: 'http://127.0.0.1:9/cb', ...creds });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_grant');
    expectDocumented(bad, '/oauth/token', 'post');
    expectDocumented(await form('/oauth/token', { grant_type: 'client_credentials', client_id: creds.client_id, client_secret: 'wrong' }), '/oauth/token', 'post');
    expectDocumented(await form('/oauth/revoke', { token: token.body.access_token, ...creds }), '/oauth/revoke', 'post');
    const meta = await fetch(`${t.url}/v2/app/demo/oauth/.well-known/oauth-authorization-server`);
    const metaText = await meta.text();
    expectDocumented({ status: meta.status, headers: meta.headers, text: metaText, body: JSON.parse(metaText) }, '/oauth/.well-known/oauth-authorization-server', 'get');
    expect(JSON.parse(metaText).token_endpoint).toBe(doc.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl);
    expectDocumented(await v2('DELETE', `/oauth/clients/${client.body.data._id}`), '/oauth/clients/{id}', 'delete');

    expectDocumented(await v2('POST', '/graphql', { body: { query: '{ __typename }' } }), '/graphql', 'post');
    expectDocumented(await v2('GET', `/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept: 'application/graphql-response+json' } }), '/graphql', 'get');
    expectDocumented(await v2('POST', '/graphql', { body: { query: '{ nope }' }, headers: { accept: 'application/graphql-response+json' } }), '/graphql', 'post');
  });
});
