// nedb's key check, replaced (nedb-patches.ts): the same rule, in time linear in the document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkObject } from './nedb-patches.js';
import { startTestServer, type TestServer } from '../../test/harness.js';

const nested = (depth: number): unknown => { let v: unknown = ['leaf']; for (let i = 1; i < depth; i++) v = [v, i]; return v; };

describe('key check', () => {
  it('refuses $ and dotted keys at any depth, in objects and arrays', () => {
    expect(() => checkObject({ a: [{ b: [{ 'c.d': 1 }] }] })).toThrow("Field name 'c.d' may not start with '$', contain '.' or be '__proto__'");
    expect(() => checkObject({ a: [[{ $where: 1 }]] })).toThrow("Field name '$where' may not");
    expect(() => checkObject({ when: { $$date: 1 }, gone: { $$deleted: true }, ok: [1, [2, { x: null }]] })).not.toThrow();
    expect(() => checkObject({ when: { $$date: 'x' } })).toThrow("Field name '$$date' may not");
  });
});

describe('deeply nested arrays in records', () => {
  let t: TestServer;
  beforeAll(async () => { t = await startTestServer(); await t.req('POST', '/database', { body: { _id: 'deep', setting: { read: 'private', write: 'private', update: 'private' } } }); });
  afterAll(async () => { await t.close(); });

  // With nedb's own check, each level of nested arrays doubled the time of a write: 30 levels
  // (within the 32 that record validation allows) never finished and stalled the server.
  it('stores, replaces and lists a record 30 arrays deep', async () => {
    const created = await t.req('POST', '/database/deep', { body: { v: nested(30) } });
    expect(created.status).toBe(201);
    const updated = await t.req('PUT', `/database/deep/${created.body._id}`, { body: { w: nested(30) } });
    expect(updated.status).toBe(200);
    const bad = await t.req('PUT', `/database/deep/${created.body._id}`, { body: { w: [[[{ 'a.b': 1 }]]] } });
    expect(bad.status).toBe(422);
    const list = await t.req('GET', '/database/deep');
    expect(list.body.meta.total).toBe(1);
  });
});
