// The harness's check of every workspace API answer against the workspace's OpenAPI document
// (openapi-conformance.ts): it must catch what disagrees, and pass what the server really says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceProblems, type Answer } from './openapi-conformance.js';
import { startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  expect((await t.req('POST', '/database', {
    body: {
      _id: 'books', setting: { read: 'public', write: 'private', update: 'only-user' },
      fields: [{ _id: 'title', type: 'string', required: true }, { _id: 'published', type: 'date' }, { _id: 'read', type: 'boolean', default: false }],
    },
  })).status).toBe(201);
});
afterAll(async () => { await t?.close(); });

const json = (status: number, body: unknown): Answer => ({
  status, body, text: JSON.stringify(body), headers: new Headers({ 'content-type': 'application/json; charset=utf-8' }),
});
const check = (method: string, path: string, answer: Answer) => conformanceProblems(t.srv, method, `${t.api}${path}`, answer);
const error = (code: string) => ({ error: { code, message: 'm', details: {} } });

describe('the OpenAPI conformance check of the test harness', () => {
  it('passes the server\'s real answers: plain dates, lists with fields=, defaults, errors', async () => {
    const created = await t.req('POST', '/database/books', { body: { title: 'Dune', published: '1965-08-01' } });
    expect(created.status).toBe(201);
    expect(created.body.published).toBe('1965-08-01');
    const page = await t.req('GET', '/database/books?fields=title&filter[published][$lt]=1970-01-01');
    expect(page.body.data).toEqual([{ _id: created.body._id, title: 'Dune' }]);
    expect(check('GET', '/database/books', json(200, page.body))).toEqual([]);
    expect((await t.req('GET', '/database/books/%E0%A4%A')).status).toBe(400);
    expect((await t.req('DELETE', '/database/books/nope')).status).toBe(404);
  });

  it('catches an undeclared status, a body that breaks the schema, an undeclared content type', () => {
    expect(check('GET', '/users', json(418, error('BAD_REQUEST')))?.join()).toMatch(/GET \/users → 418: status not declared/);
    expect(check('GET', '/users/u1', json(200, { _id: 'u1', name: 'A' }))?.join()).toMatch(/must have required property 'email'/);
    expect(check('POST', '/database/books', json(201, { _id: 'b', title: 'x', published: 'yesterday', createdAt: 'x', updatedAt: 'x' }))?.join())
      .toMatch(/published must match pattern[\s\S]*createdAt must match format "date-time"/);
    expect(check('GET', '/database/books/b1', json(200, { _id: 'b1', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' }))?.join())
      .toMatch(/must have required property 'title'/);
    expect(check('GET', '/users', { status: 200, body: 'hi', text: 'hi', headers: new Headers({ 'content-type': 'text/plain' }) })?.join())
      .toMatch(/Content-Type text\/plain not declared/);
    expect(check('GET', '/users', json(500, { error: { code: 'NOPE', message: 'm', details: {} } }))?.join()).toMatch(/code must be equal to one of the allowed values/);
    // A path no operation takes must be a 404.
    expect(check('GET', '/nowhere', json(200, {}))?.join()).toMatch(/no operation of the document matches/);
    expect(check('GET', '/nowhere', json(404, error('NOT_FOUND')))).toEqual([]);
  });

  it('matches paths as the server routes them: literal segments first, any case, one trailing slash', () => {
    // `/database/books/fields` is the fields list, not the record `fields`.
    expect(check('GET', '/database/books/FIELDS', json(200, { data: [], meta: { total: 0, limit: 0, offset: 0 } }))).toEqual([]);
    expect(check('GET', '/database/books/fields/', json(200, { _id: 'x' }))?.join()).toMatch(/must have required property 'data'/);
    // A collection's own schema applies to its records, the generic one to other collections.
    expect(check('GET', '/database/other/r1', json(200, { _id: 'r1', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' }))).toEqual([]);
  });

  it('leaves alone what is not the workspace v1 API: the console API, v2, another server', () => {
    const any = json(418, {});
    expect(conformanceProblems(t.srv, 'GET', `${t.url}/workspaces/demo/outbox`, any)).toBeUndefined();
    expect(conformanceProblems(t.srv, 'GET', `${t.url}/v2/app/demo/database`, any)).toBeUndefined();
    expect(conformanceProblems(t.srv, 'GET', 'http://example.com/api/app/demo/users', any)).toBeUndefined();
    // An unknown workspace answers 404 on every path.
    expect(conformanceProblems(t.srv, 'GET', `${t.url}/app/nope/users`, json(404, error('NOT_FOUND')))).toEqual([]);
  });
});
