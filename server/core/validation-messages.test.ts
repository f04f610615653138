// Messages a newcomer reads: validation in plain words of our own (one per problem, naming the
// field, the rule and the allowed values or range), and the errors that say what to do next
// (404 before the body, the /api/app/{app_id} hint, the console token on the workspace API,
// 413 with its limit and flag).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/harness.js';

let t: TestServer;
const PRIVATE = { read: 'private', write: 'private', update: 'private' };
beforeAll(async () => {
  t = await startTestServer({ jsonLimit: 2048, uploadLimit: 1024 });
});
afterAll(async () => { await t.close(); });

/** No library wording may reach a client. */
function expectOwnWords(text: string) {
  expect(text).not.toMatch(/Invalid input|expected \w+, received|Too small|Too big|>=|<=|\ba integer\b|\ba enum\b|Invalid option|Unrecognized key/);
}

describe('validation messages', () => {
  it('name the field, the rule and the allowed values, one per problem', async () => {
    const res = await t.req('POST', '/database', { body: { _id: 'people', setting: { read: 'everyone' } } });
    expect(res.status).toBe(422);
    const errors = res.body.error.details.errors as Array<{ field: string; reason: string; message: string }>;
    expect(errors.map((e) => [e.field, e.reason])).toEqual([['setting.read', 'enum'], ['setting.write', 'required'], ['setting.update', 'required']]);
    expect(errors[0].message).toBe(`'setting.read' must be one of 'public', 'private', 'only-user'`);
    expect(errors[1].message).toBe(`'setting.write' is required: one of 'public', 'private'`);
    expect(errors[2].message).toBe(`'setting.update' is required: one of 'private', 'only-user'`);
    expect(res.body.error.message).toBe(errors.map((e) => e.message).join('; '));
    expectOwnWords(res.text);
  });

  it('a missing setting is required by name (the reference marks read, write and update required)', async () => {
    for (const [setting, field] of [[undefined, 'setting'], [{}, 'setting.read'], [{ read: 'public' }, 'setting.write'], [{ read: 'public', write: 'public' }, 'setting.update']] as const) {
      const res = await t.req('POST', '/database', { body: { _id: 'nosetting', ...(setting ? { setting } : {}) } });
      expect(res.status).toBe(422);
      expect(res.body.error.details).toMatchObject({ field, reason: 'required' });
      expectOwnWords(res.text);
    }
    expect((await t.req('GET', '/database/nosetting')).status).toBe(404);
  });

  it('say which type, which length, which range, in words', async () => {
    const reg = await t.req('POST', '/auth/register', { token: null, body: { password: 'short' } });
    expect(reg.status).toBe(422);
    expect(reg.body.error.details.errors).toEqual([
      { field: 'email', reason: 'required', message: "'email' is required: a string" },
      { field: 'password', reason: 'too_short', message: "'password' must have at least 8 characters" },
    ]);
    const idx = await t.req('POST', '/database', { body: { _id: 'typed', setting: PRIVATE } });
    expect(idx.status).toBe(201);
    const asString = await t.req('POST', '/database/typed/indexes', { body: { fields: 'a,b' } });
    expect(asString.body.error.details).toMatchObject({ field: 'fields', reason: 'type' });
    expect(asString.body.error.message).toBe(`'fields' must be a list (JSON array) (got a string)`);
    const empty = await t.req('POST', '/database/typed/indexes', { body: { fields: [] } });
    expect(empty.body.error.message).toBe("'fields' must list at least 1 item");
    expectOwnWords(asString.text + empty.text);
  });

  it('records: an integer field out of range says "an integer from 0 to 150", never "a integer"', async () => {
    await t.req('POST', '/database/typed/fields', { body: { _id: 'age', type: 'integer', options: { min: 0, max: 150 } } });
    await t.req('POST', '/database/typed/fields', { body: { _id: 'status', type: 'enum', required: true, options: { values: ['new', 'done'] } } });
    const res = await t.req('POST', '/database/typed', { body: { age: 'old' } });
    expect(res.status).toBe(422);
    expect(res.body.error.details.errors).toEqual([
      { field: 'age', reason: 'type', message: `'age' must be an integer from 0 to 150 (got a string)` },
      { field: 'status', reason: 'required', message: "'status' is required: one of 'new', 'done'" },
    ]);
    const range = await t.req('POST', '/database/typed', { body: { age: 200, status: 'later' } });
    expect(range.body.error.details.errors.map((e: { message: string }) => e.message)).toEqual([
      "'age' must be an integer from 0 to 150",
      `'status' must be one of 'new', 'done'`,
    ]);
    expectOwnWords(res.text + range.text);
  });

  it('a bad webhook url is reported once', async () => {
    const res = await t.req('POST', '/webhooks', { body: { name: 'w', url: 'not a url', events: ['*'] } });
    expect(res.status).toBe(422);
    expect(res.body.error.details.errors).toEqual([{ field: 'url', reason: 'format', message: "'url' must be an absolute http:// or https:// URL" }]);
  });

  it('unknown keys of a strict body are each named', async () => {
    const res = await t.req('POST', '/scenarios', { body: { name: 's', trigger: { type: 'manual' }, steps: [{ type: 'delay', ms: 5, extra: 1 }] } });
    const run = await t.req('POST', `/scenarios/${res.body._id}/activate`);
    expect(run.status).toBe(422);
    expect(run.body.error.details.errors).toContainEqual({ field: 'steps.0.extra', reason: 'invalid', message: "'steps.0.extra' is not a known field" });
    expectOwnWords(run.text);
  });
});

describe('POST /database with inline fields', () => {
  it('creates them, checked as the fields endpoint checks them', async () => {
    const res = await t.req('POST', '/database', { body: { _id: 'books', setting: PRIVATE, fields: [
      { _id: 'title', type: 'string', required: true }, { _id: 'year', type: 'integer', options: { min: 0 } },
      { _id: 'sequel', type: 'reference', options: { collection: 'books' } }, { _id: 'isbn', type: 'string', unique: true },
    ] } });
    expect(res.status).toBe(201);
    expect(res.body.fields.map((f: { _id: string }) => f._id)).toEqual(['title', 'year', 'sequel', 'isbn']);
    expect((await t.req('GET', '/database/books/fields')).body.meta.total).toBe(4);
    expect((await t.req('POST', '/database/books', { body: { year: 1 } })).body.error.details).toMatchObject({ field: 'title', reason: 'required' });
    expect((await t.req('POST', '/database/books', { body: { title: 'A', isbn: 'x' } })).status).toBe(201);
    expect((await t.req('POST', '/database/books', { body: { title: 'B', isbn: 'x' } })).status).toBe(409);
  });

  it('refuses the whole collection when a field is bad, naming its place in the body', async () => {
    const cases: Array<[unknown[], string, string]> = [
      [[{ _id: 'a', type: 'text' }], 'fields.0.type', 'enum'],
      [[{ _id: 'a', type: 'string' }, { _id: 'a', type: 'number' }], 'fields.1._id', 'invalid'],
      [[{ type: 'string' }], 'fields.0._id', 'required'],
      [[{ _id: 'e', type: 'enum' }], 'fields.0.options.values', 'required'],
      [[{ _id: 'r', type: 'reference', options: { collection: 'nowhere' } }], 'fields.0.options.collection', 'invalid'],
      [[{ _id: 'createdAt', type: 'date' }], 'fields.0._id', 'invalid'],
      [['title'], 'fields.0', 'type'],
    ];
    for (const [fields, field, reason] of cases) {
      const res = await t.req('POST', '/database', { body: { _id: 'refused', setting: PRIVATE, fields } });
      expect(res.status, JSON.stringify(fields)).toBe(422);
      expect(res.body.error.details).toMatchObject({ field, reason });
      expect(res.body.error.message).toContain(`'${field}'`);
      expectOwnWords(res.text);
    }
    expect((await t.req('GET', '/database/refused')).status).toBe(404);
  });
});

describe('errors that say what to do', () => {
  it('a body sent to a route that does not exist is a 404, not 415 or 413', async () => {
    const form = new FormData();
    form.append('file', new Blob(['hi']), 'a.txt');
    const multipart = await fetch(`${t.api}/storage/nowhere`, { method: 'POST', body: form, headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(multipart.status).toBe(404);
    expect((await multipart.json()).error.code).toBe('NOT_FOUND');
    const text = await t.req('POST', '/nothing/here', { raw: 'plain', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(404);
    const big = await t.req('PUT', '/nothing', { body: { x: 'y'.repeat(5000) } });
    expect(big.status).toBe(404);
    // A route that exists still checks its body.
    expect((await t.req('POST', '/database', { raw: 'plain', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    const console415 = await fetch(`${t.url}/workspaces/demo/nothing`, { method: 'POST', body: form, headers: { authorization: `Bearer ${t.consoleToken}` } });
    expect(console415.status).toBe(404);
  });

  it('the API 404 outside a workspace names /api/app/{app_id}', async () => {
    const res = await fetch(`${t.url}/database`);
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.error.message).toBe('No route for GET /api/database. The workspace API is under /api/app/{app_id}: try /api/app/demo/database (workspaces: demo); the console API is under /api/workspaces');
  });

  it('the API 404 under a workspace names its groups, not a doubled /app/{app_id}', async () => {
    const res = await t.req('POST', '/collections', { body: { name: 'x' } });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect(res.body.error.message).toMatch(/^No route for POST \/api\/app\/demo\/collections\. The workspace API's groups are .*\/auth.*\/database.*\/storage.*; its reference is at \/app\/demo\/api\/$/);
    expect(res.body.error.message).not.toContain('/app/demo/app/');
  });

  it('the console token sent to the workspace API gets a 401 saying so', async () => {
    const res = await t.req('GET', '/database', { token: t.consoleToken });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/^This is the console token: it authorises the console API \(\/api\/workspaces\/\.\.\.\), not the workspace API/);
    expect(res.body.error.message).toContain('POST /api/app/demo/auth/login');
    expect(res.body.error.message).not.toContain(t.consoleToken);
    expect((await t.req('GET', '/database', { token: 'not-a-token' })).body.error.message).toBe('Invalid access token');
  });

  it('413 names the limit and the flag that raises it', async () => {
    const json = await t.req('POST', '/database', { body: { _id: 'x', name: 'y'.repeat(3000), setting: { read: 'private', write: 'private', update: 'private' } } });
    expect(json.status).toBe(413);
    expect(json.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: 2048 } });
    expect(json.body.error.message).toBe('The JSON body is over the 2 KiB (2048 bytes) limit; start the server with --json-limit BYTES (startServer option jsonLimit) to raise it');
    const form = new FormData();
    form.append('file', new Blob(['z'.repeat(4000)]), 'big.txt');
    const upload = await fetch(`${t.api}/storage/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(upload.status).toBe(413);
    expect((await upload.json()).error.message).toMatch(/^The file is over the 1 KiB \(1024 bytes\) limit; start the server with --upload-limit BYTES \(startServer option uploadLimit\)/);
  });
});

describe('messages never echo what was sent', () => {
  it('a secret value or a password of the wrong type is described by its kind only', async () => {
    const secret = await t.req('POST', '/credentials', { body: { name: 'NUM', value: 987654321 } });
    expect(secret.body.error.message).toBe("'value' must be a string (got a whole number)");
    const user = await t.req('POST', '/users', { body: { email: 'p@example.test', password: 13579246810 } });
    expect(user.text).not.toContain('13579246810');
  });

  it('the OpenAPI document marks setting.read, setting.write and setting.update required, index fields a list', async () => {
    const doc = await (await fetch(`${t.api}/openapi.json`)).json();
    const create = doc.components.schemas.CollectionCreate;
    expect(create.required).toEqual(expect.arrayContaining(['_id', 'setting']));
    expect(create.properties.setting.required).toEqual(['read', 'write', 'update']);
    expect(create.properties.fields.type).toBe('array');
    expect(doc.components.schemas.IndexCreate.properties.fields.type).toBe('array');
  });
});
