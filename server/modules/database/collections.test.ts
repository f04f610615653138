// Collections over HTTP: create, list, both update forms, delete, settings validation, admin only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';

let t: TestServer;
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { await t.close(); });

const ALL_PRIVATE = { read: 'private', write: 'private', update: 'private' };

describe('collections', () => {
  it('creates with defaults, lists, gets via list, and rejects duplicates', async () => {
    const created = await t.req('POST', '/database', { body: { _id: 'people', name: 'People', setting: { read: 'public', write: 'private', update: 'only-user' } } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      _id: 'people', name: 'People', setting: { read: 'public', write: 'private', update: 'only-user' },
      fields: [], views: [], indexes: [], createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    const bare = await t.req('POST', '/database', { body: { _id: 'bare', setting: { read: 'private', write: 'private', update: 'private' } } });
    expect(bare.status).toBe(201);
    expect(bare.body).toMatchObject({ _id: 'bare', name: 'bare', setting: { read: 'private', write: 'private', update: 'private' } });
    expect(bare.body.setting.remove).toBeUndefined();
    const half = await t.req('POST', '/database', { body: { _id: 'half', setting: { read: 'public', write: 'private', update: 'private' } } });
    expect(half.body.setting).toEqual({ read: 'public', write: 'private', update: 'private' });

    const dup = await t.req('POST', '/database', { body: { _id: 'people', setting: { read: 'private', write: 'private', update: 'private' } } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('CONFLICT');

    const list = await t.req('GET', '/database');
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ total: 3, limit: 50, offset: 0 });
    expect(list.body.data.map((c: { _id: string }) => c._id)).toEqual(['people', 'bare', 'half']);
    const page = await t.req('GET', '/database?limit=1&offset=1&fields=name');
    expect(page.body).toEqual({ data: [{ _id: 'bare', name: 'bare' }], meta: { total: 3, limit: 1, offset: 1 } });
    const filtered = await t.req('GET', '/database?filter[setting.read]=public&sort=-_id');
    expect(filtered.body.data.map((c: { _id: string }) => c._id)).toEqual(['people', 'half']);
    expect((await t.req('GET', '/database?limit=x')).status).toBe(400);
  });

  it('validates the collection body', async () => {
    const cases: Array<[unknown, string, string]> = [
      [{}, '_id', 'required'],
      [{ _id: 12 }, '_id', 'type'],
      [{ _id: '1abc' }, '_id', 'format'],
      [{ _id: 'a'.repeat(65) }, '_id', 'format'],
      [{ _id: 'bad id' }, '_id', 'format'],
      [{ _id: 'ok', name: '' }, 'name', 'too_short'],
      [{ _id: 'ok', setting: { ...ALL_PRIVATE, read: 'everyone' } }, 'setting.read', 'enum'],
      [{ _id: 'ok', setting: { ...ALL_PRIVATE, write: 'only-user' } }, 'setting.write', 'enum'],
      [{ _id: 'ok', setting: { ...ALL_PRIVATE, update: 'public' } }, 'setting.update', 'enum'],
      [{ _id: 'ok', setting: { ...ALL_PRIVATE, remove: 'public' } }, 'setting.remove', 'enum'],
      [{ _id: 'ok', setting: 'public' }, 'setting', 'type'],
      [{ _id: 'ok' }, 'setting', 'required'],
      [{ _id: 'ok', setting: {} }, 'setting.read', 'required'],
      [{ _id: 'ok', setting: { read: 'public' } }, 'setting.write', 'required'],
      [{ _id: 'ok', setting: { read: 'public', write: 'public' } }, 'setting.update', 'required'],
    ];
    for (const [body, field, reason] of cases) {
      const res = await t.req('POST', '/database', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, reason } });
      expect(res.body.error.details.errors[0]).toMatchObject({ field, reason });
    }
    expect((await t.req('GET', '/database?filter[_id]=ok')).body.meta.total).toBe(0);
  });

  it('updates by path (partial, PUT and PATCH) and by body _id', async () => {
    await t.req('POST', '/database', { body: { _id: 'notes', name: 'Notes', setting: { read: 'public', write: 'public', update: 'private' } } });
    const put = await t.req('PUT', '/database/notes', { body: { setting: { update: 'only-user', remove: 'private' } } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ _id: 'notes', name: 'Notes', setting: { read: 'public', write: 'public', update: 'only-user', remove: 'private' } });
    const patch = await t.req('PATCH', '/database/notes', { body: { name: 'My notes', setting: { remove: null } } });
    expect(patch.status).toBe(200);
    expect(patch.body.name).toBe('My notes');
    expect(patch.body.setting).toEqual({ read: 'public', write: 'public', update: 'only-user' });
    expect(Date.parse(patch.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(put.body.createdAt));

    const byBody = await t.req('PUT', '/database', { body: { _id: 'notes', name: 'Renamed' } });
    expect(byBody.status).toBe(200);
    expect(byBody.body).toMatchObject({ _id: 'notes', name: 'Renamed', setting: { update: 'only-user' } });

    expect((await t.req('PUT', '/database', { body: { _id: 'nope', name: 'x' } })).status).toBe(404);
    expect((await t.req('PUT', '/database', { body: { name: 'x' } })).body.error.details).toMatchObject({ field: '_id', reason: 'required' });
    expect((await t.req('PUT', '/database/nope', { body: { name: 'x' } })).status).toBe(404);
    const rename = await t.req('PUT', '/database/notes', { body: { _id: 'other' } });
    expect(rename.status).toBe(422);
    expect(rename.body.error.details).toMatchObject({ field: '_id', reason: 'read_only' });
    expect((await t.req('PUT', '/database/notes', { body: { _id: 'notes', name: 'Same id is fine' } })).status).toBe(200);
    expect((await t.req('PUT', '/database/notes', { body: { setting: { read: 'nobody' } } })).body.error.details).toMatchObject({ field: 'setting.read', reason: 'enum' });
    expect((await t.req('PUT', '/database/notes', { body: { name: 5 } })).body.error.details).toMatchObject({ field: 'name', reason: 'type' });
  });

  it('deletes a collection with its records, and a new one of the same id starts empty', async () => {
    await t.req('POST', '/database', { body: { _id: 'temp', setting: { read: 'private', write: 'private', update: 'private' } } });
    expect((await t.req('POST', '/database/temp', { body: { a: 1 } })).status).toBe(201);
    await t.req('POST', '/database/temp/fields', { body: { name: 'a', type: 'number' } });
    expect((await t.req('DELETE', '/database/temp')).status).toBe(204);
    expect((await t.req('DELETE', '/database/temp')).status).toBe(404);
    expect((await t.req('GET', '/database/temp')).status).toBe(404);
    await t.req('POST', '/database', { body: { _id: 'temp', setting: { read: 'private', write: 'private', update: 'private' } } });
    const after = await t.req('GET', '/database/temp');
    expect(after.body.meta.total).toBe(0);
    expect((await t.req('GET', '/database/temp/fields')).body.data).toEqual([]);
  });

  it('refuses an id equal to an existing one apart from case (one file on case-insensitive file systems), touching nothing', async () => {
    const data = tempDataDir();
    const s = await startTestServer({ data: data.dir });
    try {
      await s.req('POST', '/database', { body: { _id: 'people', setting: { read: 'private', write: 'private', update: 'private' } } });
      const rec = (await s.req('POST', '/database/people', { body: { name: 'Ann' } })).body;
      for (const id of ['People', 'PEOPLE', 'pEoPlE']) {
        const res = await s.req('POST', '/database', { body: { _id: id, setting: { read: 'private', write: 'private', update: 'private' } } });
        expect(res.status, id).toBe(409);
        expect(res.body.error).toMatchObject({ code: 'CONFLICT', details: { field: '_id' } });
        expect(res.body.error.message).toMatch(/'people'.*case/);
      }
      // The existing collection and its records file are untouched.
      expect((await s.req('GET', `/database/people/${rec._id}`)).body.name).toBe('Ann');
      const files = readdirSync(join(data.dir, 'workspaces', 'demo', 'collections'));
      expect(files).toContain('people.db');
      expect(files.filter((f) => f.toLowerCase() === 'people.db')).toEqual(['people.db']);
      expect((await s.req('GET', '/database')).body.data.map((c: { _id: string }) => c._id)).toEqual(['people']);
      // Once the other is gone, the id is free in any case.
      expect((await s.req('DELETE', '/database/people')).status).toBe(204);
      expect(existsSync(join(data.dir, 'workspaces', 'demo', 'collections', 'people.db'))).toBe(false);
      expect((await s.req('POST', '/database', { body: { _id: 'People', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
      expect((await s.req('GET', '/database/People')).body.meta.total).toBe(0);
    } finally {
      await s.close();
      data.remove();
    }
  });

  it("refuses to delete a collection another collection's reference field points at", async () => {
    expect((await t.req('POST', '/database', { body: { _id: 'authors', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
    expect((await t.req('POST', '/database', { body: { _id: 'books', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
    expect((await t.req('POST', '/database/books/fields', { body: { _id: 'author', type: 'reference', options: { collection: 'authors' } } })).status).toBe(201);
    const refused = await t.req('DELETE', '/database/authors');
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toEqual({ collection: 'books', field: 'author' });
    expect((await t.req('GET', '/database/authors')).status).toBe(200);
    expect((await t.req('DELETE', '/database/books/fields/author')).status).toBe(204);
    expect((await t.req('DELETE', '/database/authors')).status).toBe(204);
    expect((await t.req('DELETE', '/database/books')).status).toBe(204);
  });

  it('is admin only', async () => {
    for (const [method, path] of [['GET', '/database'], ['POST', '/database'], ['PUT', '/database'], ['PUT', '/database/people'], ['DELETE', '/database/people']]) {
      const res = await t.req(method, path, { token: null, ...(method === 'GET' || method === 'DELETE' ? {} : { body: { _id: 'x' } }) });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
    expect((await t.req('GET', '/database', { token: 'garbage' })).status).toBe(401);
  });

  it('answers bad bodies with the contract errors', async () => {
    const raw = (body: string, type = 'application/json') => fetch(`${t.api}/database`, { method: 'POST', headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': type }, body });
    expect((await raw('{nope')).status).toBe(400);
    expect((await raw('[1,2]')).status).toBe(400);
    expect((await raw('"str"')).status).toBe(400);
    expect((await raw('_id=x', 'application/x-www-form-urlencoded')).status).toBe(415);
    const big = await raw(JSON.stringify({ _id: 'big', pad: 'x'.repeat(1.2 * 1024 * 1024) }));
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
