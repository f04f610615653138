// POST /v2/batch over HTTP, on both drivers: operations in order with the caller's rights,
// the limits, and atomic batches that leave no trace of a failure (reads, lists, events).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/harness.js';
import type { BusEvent } from '../core/bus.js';
import { makeCollection, v2Client } from './v2-client.js';

let t: TestServer;
let v2: ReturnType<typeof v2Client>;
const events: BusEvent[] = [];

beforeAll(async () => {
  t = await startTestServer();
  v2 = v2Client(t);
  t.srv.ctx.bus.subscribe((e) => { events.push(e); });
  await makeCollection(t, 'tasks', [{ _id: 'title', name: 'Title', type: 'string', required: true }, { _id: 'code', name: 'Code', type: 'string', unique: true }]);
});
afterAll(async () => { await t?.close(); });

async function batch(body: unknown, token: string | null = t.adminToken) {
  const res = await fetch(`${t.url}/v2/batch`, {
    method: 'POST', body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

const op = (method: string, path: string, body?: unknown) => ({ method, path: `/app/demo${path}`, ...(body ? { body } : {}) });

describe('batch', () => {
  it('runs operations in order, each answered as a v2 request would be; a failure does not stop a plain batch', async () => {
    const r = await batch({ operations: [
      op('POST', '/database/tasks', { _id: 'b1', title: 'one' }),
      op('GET', '/database/tasks/b1'),
      op('PATCH', '/database/tasks/b1', { title: 'two' }),
      op('POST', '/database/tasks', { title: '' }),
      op('DELETE', '/database/tasks/b1'),
      op('GET', '/database/tasks/b1'),
    ] });
    expect(r.status).toBe(200);
    expect(r.body.meta.version).toBe('2');
    expect(r.body.data.map((x: { status: number }) => x.status)).toEqual([201, 200, 200, 422, 204, 404]);
    expect(r.body.data[1].body.data).toMatchObject({ _id: 'b1', title: 'one' });
    expect(r.body.data[2].body.data.title).toBe('two');
    expect(r.body.data[3].body.error.details.field).toBe('title');
    expect(r.body.data[4].body).toBeNull();
  });

  it("acts with the caller's rights, per operation", async () => {
    const user = await t.user('Batcher');
    const r = await batch({ operations: [op('POST', '/database/tasks', { title: 'mine' }), op('GET', '/users'), op('POST', '/database', { _id: 'x', name: 'x', setting: { read: 'public' } })] }, user.token);
    expect(r.body.data.map((x: { status: number }) => x.status)).toEqual([201, 403, 403]);
    expect(r.body.data[0].body.data._owner).toBe(user._id);
    const anonymous = await batch({ operations: [op('POST', '/database/tasks', { title: 'x' }), op('GET', '/database/tasks?limit=1')] }, null);
    expect(anonymous.body.data.map((x: { status: number }) => x.status)).toEqual([401, 200]);
  });

  it('refuses more than 100 operations, two workspaces, an empty or malformed batch', async () => {
    const many = await batch({ operations: Array.from({ length: 101 }, () => op('GET', '/database/tasks')) });
    expect(many.status).toBe(400);
    expect(many.body.error.details).toMatchObject({ field: 'operations', max: 100 });
    const two = await batch({ operations: [op('GET', '/database/tasks'), { method: 'GET', path: '/app/other/database/tasks' }] });
    expect(two.status).toBe(400);
    expect(two.body.error.details.workspaces).toEqual(['demo', 'other']);
    expect((await batch({ operations: [] })).status).toBeGreaterThanOrEqual(400);
    expect((await batch({ operations: [{ method: 'GET', path: '/database/tasks' }] })).status).toBeGreaterThanOrEqual(400);
    expect((await batch({ operations: [op('TRACE', '/database/tasks')] })).status).toBeGreaterThanOrEqual(400);
    const get = await fetch(`${t.url}/v2/batch`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('an atomic batch that succeeds applies every write and publishes its events after', async () => {
    const mark = events.length;
    const r = await batch({ atomic: true, operations: [op('POST', '/database/tasks', { _id: 'a1', title: 'a1' }), op('PATCH', '/database/tasks/a1', { title: 'a1b' }), op('GET', '/database/tasks/a1')] });
    expect(r.status).toBe(200);
    expect(r.body.data.map((x: { status: number }) => x.status)).toEqual([201, 200, 200]);
    expect(r.body.data[2].body.data.title).toBe('a1b');
    expect(events.slice(mark).map((e) => e.type)).toEqual(['record.created', 'record.updated']);
    expect((await v2('GET', '/database/tasks/a1')).body.data.title).toBe('a1b');
  });

  it('an atomic batch that fails leaves no trace: no write in reads or lists, no event; the answer is the failure with its index', async () => {
    await v2('POST', '/database/tasks', { body: { _id: 'keep', title: 'kept', code: 'K1' } });
    await v2('POST', '/database/tasks', { body: { _id: 'gone', title: 'to delete' } });
    const before = await v2('GET', '/database/tasks?limit=100');
    const mark = events.length;
    const r = await batch({ atomic: true, operations: [
      op('POST', '/database/tasks', { _id: 'ghost', title: 'never', code: 'G1' }),
      op('PUT', '/database/tasks/keep', { title: 'changed', code: 'K2' }),
      op('DELETE', '/database/tasks/gone'),
      op('GET', '/database/tasks/ghost'),
      op('POST', '/database/tasks', { title: 'dup', code: 'G1' }), // unique violation: 409
      op('POST', '/database/tasks', { title: 'after' }),
    ] });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('CONFLICT');
    expect(r.body.error.details.index).toBe(4);
    expect(r.body.meta.version).toBe('2');
    expect(events.length).toBe(mark);
    expect((await v2('GET', '/database/tasks/ghost')).status).toBe(404);
    expect((await v2('GET', '/database/tasks/keep')).body.data).toMatchObject({ title: 'kept', code: 'K1' });
    expect((await v2('GET', '/database/tasks/gone')).status).toBe(200);
    const after = await v2('GET', '/database/tasks?limit=100');
    expect(after.body.data).toEqual(before.body.data);
    expect(after.body.meta.total).toBe(before.body.meta.total);
    // The unique value the undone record held is free again.
    expect((await v2('POST', '/database/tasks', { body: { title: 'reuse', code: 'G1' } })).status).toBe(201);
  });

  it('an atomic batch refuses a collection change (it cannot undo it)', async () => {
    const r = await batch({ atomic: true, operations: [op('POST', '/database/tasks', { title: 'x' }), op('POST', '/database', { _id: 'c2', name: 'c2', setting: { read: 'public' } })] });
    expect(r.status).toBe(400);
    expect(r.body.error.details.index).toBe(1);
    expect((await v2('GET', '/database/tasks?filter[title]=x')).body.meta.total).toBe(0);
  });
});
