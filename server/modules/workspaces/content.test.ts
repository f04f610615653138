// The testing toolkit over HTTP: snapshots, reset, export / import round trips, bad imports,
// restores under concurrent traffic, isolation between workspaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

let t: TestServer;
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { await t.close(); });

const names = (res: { body: { data: Array<Record<string, unknown>> } }) => res.body.data.map((r) => r._id).sort();

async function people(n: number, collection = 'people', extra: Record<string, unknown> = {}) {
  expect((await t.req('POST', '/database', { body: { _id: collection, setting: { read: 'public', write: 'public', update: 'private' } } })).status).toBe(201);
  for (let i = 0; i < n; i++) {
    const r = await t.req('POST', `/database/${collection}`, { body: { _id: `p${i}`, name: `Person ${i}`, n: i, ...extra } });
    expect(r.status).toBe(201);
  }
}

describe('snapshots', () => {
  it('brings back deleted and changed records exactly, and keeps the admin token', async () => {
    await t.consoleReq('POST', '/workspaces/demo/reset');
    await people(5);
    const before = (await t.req('GET', '/database/people?limit=100')).body.data;
    const snap = await t.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'fixtures' });
    expect(snap.status).toBe(201);
    expect(snap.body).toMatchObject({ name: 'fixtures', createdAt: expect.any(String), records: 5, collections: 1, users: 1 });

    expect((await t.req('DELETE', '/database/people/p1')).status).toBe(204);
    expect((await t.req('PUT', '/database/people/p2', { body: { name: 'Changed' } })).status).toBe(200);
    expect((await t.req('POST', '/database/people', { body: { _id: 'extra', name: 'New' } })).status).toBe(201);
    expect((await t.req('POST', '/database', { body: { _id: 'later', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);

    const restored = await t.consoleReq('POST', '/workspaces/demo/snapshots/fixtures/restore');
    expect(restored.status).toBe(200);
    expect(restored.body.name).toBe('fixtures');
    const after = await t.req('GET', '/database/people?limit=100');
    expect(after.status).toBe(200); // the admin token survived the restore
    expect(after.body.data).toEqual(before);
    expect((await t.req('GET', '/database/later')).status).toBe(404);

    // Restoring again (nothing changed) is a no-op that still answers.
    expect((await t.consoleReq('POST', '/workspaces/demo/snapshots/fixtures/restore')).status).toBe(200);
    expect((await t.req('GET', '/database/people?limit=100')).body.data).toEqual(before);
  });

  it('counts the schema\'s collections, also those that never held a record', async () => {
    await t.consoleReq('POST', '/workspaces/demo/reset');
    await people(2);
    expect((await t.req('POST', '/database', { body: { _id: 'empty', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
    const snap = await t.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'counts', overwrite: true });
    expect(snap.body).toMatchObject({ records: 2, collections: 2 });
    expect((await t.consoleReq('POST', '/workspaces/demo/snapshots/counts/restore')).body).toMatchObject({ collections: 2 });
  });

  it('lists snapshots, refuses duplicates and unknown names', async () => {
    expect((await t.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'fixtures' })).status).toBe(409);
    expect((await t.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'fixtures', overwrite: true })).status).toBe(201);
    const bad = await t.consoleReq('POST', '/workspaces/demo/snapshots', { name: '../x' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toMatchObject({ field: 'name', reason: 'format' });
    const list = await t.consoleReq('GET', '/workspaces/demo/snapshots');
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { name: string }) => s.name)).toContain('fixtures');
    expect((await t.consoleReq('POST', '/workspaces/demo/snapshots/nope/restore')).status).toBe(404);
    expect((await t.consoleReq('POST', '/workspaces/ghost/snapshots/x/restore')).status).toBe(404);
  });

  it('brings back users and file bytes, and sessions of vanished users stop working', async () => {
    await t.consoleReq('POST', '/workspaces/demo/reset');
    await t.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'empty', overwrite: true });
    const user = await t.req('POST', '/users', { body: { email: 'temp@example.com', password: 'temp-password-1' } });
    expect(user.status).toBe(201);
    const login = await t.req('POST', '/auth/login', { token: null, body: { email: 'temp@example.com', password: 'temp-password-1' } });
    expect(login.status).toBe(200);
    const form = new FormData();
    form.append('file', new Blob(['hello bytes']), 'a.txt');
    const up = await fetch(`${t.api}/storage/upload`, { method: 'POST', headers: { authorization: `Bearer ${t.adminToken}` }, body: form });
    expect(up.status).toBe(201);
    const file = await up.json();

    await t.consoleReq('POST', '/workspaces/demo/snapshots/empty/restore');
    expect((await t.req('GET', '/auth/me', { token: login.body.token })).status).toBe(401);
    expect((await t.req('GET', `/storage/${file._id}`)).status).toBe(404);
    expect((await t.req('GET', '/users')).body.meta.total).toBe(1);
  });
});

describe('restore under concurrent requests', () => {
  it('answers each request with 503 or one whole state, never a mixture', async () => {
    await t.consoleReq('POST', '/workspaces/demo/reset');
    await people(60, 'people', { v: 'snap' });
    await t.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'race', overwrite: true });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 60; i++) await t.req('PUT', `/database/people/p${i}`, { body: { v: 'new' } });
      const traffic: Array<Promise<{ status: number; body: any }>> = [];
      let restoring = true;
      const restore = t.consoleReq('POST', '/workspaces/demo/snapshots/race/restore').finally(() => { restoring = false; });
      let i = 0;
      while (restoring && i < 200) {
        traffic.push(i % 4 === 3
          ? t.req('POST', '/database/people', { body: { v: 'w' } })
          : t.req('GET', '/database/people?limit=100'));
        i++;
        if (i % 10 === 0) await new Promise((r) => setImmediate(r));
      }
      expect((await restore).status).toBe(200);
      for (const res of await Promise.all(traffic)) {
        expect([200, 201, 503]).toContain(res.status);
        if (res.status === 503) expect(res.body.error.code).toBe('UNAVAILABLE');
        if (res.status !== 200) continue;
        const vs = new Set(res.body.data.filter((r: { v: string }) => r.v !== 'w').map((r: { v: string }) => r.v));
        expect(vs.size).toBe(1);
        expect(res.body.data.filter((r: { v: string }) => r.v !== 'w')).toHaveLength(60);
      }
      const final = await t.req('GET', '/database/people?limit=100');
      expect(final.body.data.every((r: { v: string }) => r.v === 'snap' || r.v === 'w')).toBe(true);
    }
  });
});

describe('reset', () => {
  it('with keepSchema keeps collections and webhooks, wipes data and users but the first admin', async () => {
    await t.consoleReq('POST', '/workspaces/demo/reset');
    await people(3);
    expect((await t.req('POST', '/users', { body: { email: 'gone@example.com', password: 'gone-password-1' } })).status).toBe(201);
    expect((await t.req('POST', '/webhooks', { body: { name: 'hook', url: 'http://127.0.0.1:9/x', events: ['*'] } })).status).toBe(201);
    const r = await t.consoleReq('POST', '/workspaces/demo/reset', { keepSchema: true });
    expect(r.status).toBe(200);
    expect((await t.req('GET', '/database/people')).body.meta.total).toBe(0);
    expect((await t.req('GET', '/database')).body.data.map((c: { _id: string }) => c._id)).toEqual(['people']);
    expect((await t.req('GET', '/users')).body.data.map((u: { email: string }) => u.email)).toEqual([t.adminEmail]);
    expect((await t.req('GET', '/webhooks')).body.meta.total).toBe(1);
    expect((await t.consoleReq('GET', '/workspaces/demo/requests')).body.meta.total).toBeLessThanOrEqual(4);
  });

  it('without keepSchema drops collections and definitions too', async () => {
    const r = await t.consoleReq('POST', '/workspaces/demo/reset', {});
    expect(r.status).toBe(200);
    expect((await t.req('GET', '/database')).body.meta.total).toBe(0);
    expect((await t.req('GET', '/database/people')).status).toBe(404);
    expect((await t.req('GET', '/webhooks')).body.meta.total).toBe(0);
    expect((await t.req('GET', '/auth/me')).status).toBe(200);
    expect((await t.consoleReq('POST', '/workspaces/demo/reset', { keepSchema: 'yes' })).status).toBe(422);
  });
});

describe('export / import', () => {
  it('round-trips into a new workspace: same lists, same sign-ins, same bytes, no secret values', async () => {
    await t.consoleReq('POST', '/workspaces/demo/reset');
    await people(4);
    expect((await t.req('POST', '/users', { body: { email: 'ann@example.com', password: 'ann-password-1', name: 'Ann' } })).status).toBe(201);
    expect((await t.req('POST', '/credentials', { body: { name: 'API_KEY', value: 'sk_live_NEVER_EXPORTED' } })).status).toBe(201);
    const hook = await t.req('POST', '/webhooks', { body: { name: 'hook', url: 'http://127.0.0.1:9/x', events: ['record.*'] } });
    const form = new FormData();
    form.append('file', new Blob([Buffer.from([0, 1, 2, 250, 255])]), 'bin.dat');
    const up = await (await fetch(`${t.api}/storage/upload`, { method: 'POST', headers: { authorization: `Bearer ${t.adminToken}` }, body: form })).json();

    const dump = await t.consoleReq('GET', '/workspaces/demo/export');
    expect(dump.status).toBe(200);
    expect(dump.body).toMatchObject({ format: 'homebase-dump', version: 1 });
    expect(dump.text).not.toContain('sk_live_NEVER_EXPORTED');
    expect(dump.text).not.toContain(hook.body.secret);
    expect(dump.text).not.toMatch(/sealed/i);
    expect(dump.body.users.every((u: { passwordHash?: string }) => /^\$2[aby]\$/.test(u.passwordHash ?? ''))).toBe(true);

    expect((await t.consoleReq('POST', '/workspaces', { _id: 'copy', admin: { email: t.adminEmail, password: 'other-password-1' } })).status).toBe(201);
    const imported = await t.consoleReq('POST', '/workspaces/copy/import', dump.body);
    expect(imported.status).toBe(200);
    expect(imported.body.imported).toMatchObject({ collections: 1, records: 4, users: 2, files: 1, webhooks: 1, secrets: 1 });

    const copyToken = (await t.consoleReq('POST', '/workspaces/copy/token')).body.token;
    const copyReq = (path: string) => fetch(`${t.url}/app/copy${path}`, { headers: { authorization: `Bearer ${copyToken}` } });
    expect((await (await copyReq('/database/people?limit=100')).json()).data).toEqual((await t.req('GET', '/database/people?limit=100')).body.data);
    expect(names(await t.req('GET', '/users')) as string[]).toEqual(((await (await copyReq('/users')).json()).data as Array<{ _id: string }>).map((u) => u._id).sort());
    for (const [email, password] of [['ann@example.com', 'ann-password-1'], [t.adminEmail, t.adminPassword]]) {
      const login = await fetch(`${t.url}/app/copy/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
      expect(login.status).toBe(200);
    }
    const bytes = Buffer.from(await (await copyReq(`/storage/${up._id}/download`)).arrayBuffer());
    expect([...bytes]).toEqual([0, 1, 2, 250, 255]);
    const secrets = await (await copyReq('/credentials')).json();
    expect(secrets.data.map((s: { name: string }) => s.name)).toEqual(['API_KEY']);
    expect((await (await copyReq('/webhooks')).json()).data[0]).toMatchObject({ name: 'hook', events: ['record.*'] });
  });

  it('a bad import answers 422 with the path of the first problem and changes nothing', async () => {
    const before = await t.consoleReq('GET', '/workspaces/copy/export');
    const good = before.body;
    const cases: Array<[unknown, string]> = [
      [{ ...good, version: 9 }, 'version'],
      [{ ...good, records: { people: [...good.records.people, { _id: good.records.people[0]._id }] } }, 'records.people[4]._id'],
      [{ ...good, records: { nowhere: [] } }, 'records.nowhere'],
      [{ ...good, users: [...good.users, { ...good.users[0], _id: 'Another1' }] }, 'users[2].email'],
      [{ ...good, files: [{ ...good.files[0], content: '***' }] }, 'files[0].content'],
      [{ ...good, records: { people: [{ _id: 'ok', 'a.b': 1 }] } }, 'records.people[0]["a.b"]'],
      [{ ...good, schema: { ...good.schema, collections: [...good.schema.collections, { ...good.schema.collections[0], _id: good.schema.collections[0]._id.toUpperCase() }] } },
        `schema.collections[${good.schema.collections.length}]._id`],
    ];
    for (const [body, field] of cases) {
      const r = await t.consoleReq('POST', '/workspaces/copy/import', body);
      expect(r.status).toBe(422);
      expect(r.body.error.details.field).toBe(field);
    }
    expect((await t.consoleReq('POST', '/workspaces/copy/import', [])).status).toBe(400);
    expect((await t.consoleReq('POST', '/workspaces/nope/import', good)).status).toBe(404);
    const after = await t.consoleReq('GET', '/workspaces/copy/export');
    expect({ ...after.body, exportedAt: 0 }).toEqual({ ...before.body, exportedAt: 0 });
  });

  it('accepts bodies far above the 1 MiB JSON limit', async () => {
    const records = Array.from({ length: 3000 }, (_, i) => ({ _id: `r${i}`, text: 'x'.repeat(500) }));
    const dump = { format: 'homebase-dump', version: 1, schema: { collections: [{ _id: 'big' }] }, records: { big: records } };
    const r = await t.consoleReq('POST', '/workspaces/copy/import', dump);
    expect(r.status).toBe(200);
    expect(r.body.imported.records).toBe(3000);
  });
});

describe('isolation', () => {
  it('keeps workspaces apart through writes, snapshots, restores and resets', async () => {
    expect((await t.consoleReq('POST', '/workspaces', { _id: 'iso', admin: { email: 'iso@example.com', password: 'iso-password-1' } })).status).toBe(201);
    const isoToken = (await t.consoleReq('POST', '/workspaces/iso/token')).body.token;
    const iso = (method: string, path: string, body?: unknown) => fetch(`${t.url}/app/iso${path}`, {
      method, headers: { authorization: `Bearer ${isoToken}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
    });
    await t.consoleReq('POST', '/workspaces/demo/reset');
    await people(2);
    expect((await iso('POST', '/database', { _id: 'people', setting: { read: 'private', write: 'private', update: 'private' } })).status).toBe(201);
    expect((await iso('POST', '/database/people', { _id: 'only-iso' })).status).toBe(201);
    expect((await t.consoleReq('POST', '/workspaces/iso/snapshots', { name: 's' })).status).toBe(201);
    expect((await t.consoleReq('GET', '/workspaces/demo/snapshots')).body.data.map((s: { name: string }) => s.name)).not.toContain('s');
    await t.consoleReq('POST', '/workspaces/demo/reset');
    expect((await (await iso('GET', '/database/people')).json()).data.map((r: { _id: string }) => r._id)).toEqual(['only-iso']);
    expect((await t.req('GET', '/database/people')).status).toBe(404);
    expect((await fetch(`${t.url}/app/iso/auth/me`, { headers: { authorization: `Bearer ${t.adminToken}` } })).status).toBe(401);
    const log = (await t.consoleReq('GET', '/workspaces/iso/requests')).body.data;
    expect(log.every((e: { path: string }) => e.path.startsWith('/api/app/iso/'))).toBe(true);
  });
});
