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
});
