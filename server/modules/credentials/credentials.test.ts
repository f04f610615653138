import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';
import { secretValues } from './service.js';

const VALUE = 'sk_live_TOPSECRET_4242';

let t: TestServer;
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { await t.close(); });

describe('credentials', () => {
  it('creates, reads, lists, replaces and deletes a secret without ever returning its value', async () => {
    const created = await t.req('POST', '/credentials', { body: { name: 'STRIPE_KEY', type: 'api-key', description: 'test key', value: VALUE } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      _id: expect.any(String), name: 'STRIPE_KEY', type: 'api-key', description: 'test key',
      createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    const id = created.body._id;

    const got = await t.req('GET', `/credentials/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const list = await t.req('GET', '/credentials');
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ total: 1, limit: 50, offset: 0 });
    expect(list.body.data[0].name).toBe('STRIPE_KEY');

    const projected = await t.req('GET', '/credentials?fields=sealedValue,value,name');
    expect(projected.body.data[0]).toEqual({ _id: id, name: 'STRIPE_KEY' });

    const replaced = await t.req('PUT', `/credentials/${id}`, { body: { value: 'sk_live_NEWVALUE_9999' } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.description).toBe('test key');
    const patched = await t.req('PATCH', `/credentials/${id}`, { body: { description: 'rotated' } });
    expect(patched.status).toBe(200);
    expect(patched.body.description).toBe('rotated');

    const ws = t.srv.ctx.registry.require(t.workspace);
    expect((await secretValues(ws)).get('STRIPE_KEY')).toBe('sk_live_NEWVALUE_9999');

    for (const res of [created, got, list, projected, replaced, patched]) {
      expect(res.text).not.toContain(VALUE);
      expect(res.text).not.toContain('sk_live_NEWVALUE_9999');
      expect(res.text).not.toContain('sealed');
    }

    expect((await t.req('DELETE', `/credentials/${id}`)).status).toBe(204);
    expect((await t.req('GET', `/credentials/${id}`)).status).toBe(404);
    expect((await t.req('DELETE', `/credentials/${id}`)).status).toBe(404);
    expect((await t.req('PUT', `/credentials/${id}`, { body: { value: 'x' } })).status).toBe(404);
  });

  it('keeps names unique and template-friendly', async () => {
    expect((await t.req('POST', '/credentials', { body: { name: 'DUP', value: 'a1' } })).status).toBe(201);
    const dup = await t.req('POST', '/credentials', { body: { name: 'DUP', value: 'a2' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('CONFLICT');
    const other = await t.req('POST', '/credentials', { body: { name: 'OTHER', value: 'a3' } });
    expect((await t.req('PUT', `/credentials/${other.body._id}`, { body: { name: 'DUP' } })).status).toBe(409);

    const badName = await t.req('POST', '/credentials', { body: { name: 'has space', value: 'v' } });
    expect(badName.status).toBe(422);
    expect(badName.body.error.details.field).toBe('name');
    const noValue = await t.req('POST', '/credentials', { body: { name: 'NOVALUE' } });
    expect(noValue.status).toBe(422);
    expect(noValue.body.error.details).toMatchObject({ field: 'value', reason: 'required' });
    const wrongType = await t.req('POST', '/credentials', { body: { name: 'NUM', value: 12345 } });
    expect(wrongType.status).toBe(422);
    expect(wrongType.text).not.toContain('12345');
  });

  it('is admin only', async () => {
    expect((await t.req('GET', '/credentials', { token: null })).status).toBe(401);
    expect((await t.req('POST', '/credentials', { token: null, body: { name: 'X', value: 'v' } })).status).toBe(401);
    const user = (await t.user()).token;
    const forbidden = await t.req('GET', '/credentials', { token: user });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    expect((await t.req('POST', '/credentials', { token: user, body: { name: 'X', value: 'v' } })).status).toBe(403);
  });
});

describe('credentials at rest', () => {
  it('stores only ciphertext, with the key file readable by its owner only', async () => {
    const data = tempDataDir();
    const s = await startTestServer({ data: data.dir });
    try {
      const res = await s.req('POST', '/credentials', { body: { name: 'DB_PASSWORD', value: VALUE } });
      expect(res.status).toBe(201);
      const wsDir = join(data.dir, 'workspaces', s.workspace);
      const file = readFileSync(join(wsDir, 'stores', 'credentials.db'), 'utf8');
      expect(file).toContain('DB_PASSWORD');
      expect(file).not.toContain(VALUE);
      expect(statSync(join(wsDir, 'keys.json')).mode & 0o777).toBe(0o600);
    } finally {
      await s.close();
    }
    // A restart reads the value back with the same key.
    const again = await startTestServer({ data: data.dir });
    try {
      expect((await secretValues(again.srv.ctx.registry.require(again.workspace))).get('DB_PASSWORD')).toBe(VALUE);
    } finally {
      await again.close();
      data.remove();
    }
  });
});
