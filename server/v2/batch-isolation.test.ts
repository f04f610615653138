// An atomic batch that fails, watched by concurrent requests while it runs, on both drivers:
// readers by id and by list never see a write of the batch (created, changed or removed), a
// concurrent change of a record the batch changed is kept (not overwritten by the undo), and no
// event of the batch is published.
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
  await makeCollection(t, 'iso', [{ _id: 'title', name: 'Title', type: 'string', required: true }, { _id: 'code', name: 'Code', type: 'string', unique: true }, { _id: 'note', name: 'Note', type: 'string' }]);
});
afterAll(async () => { await t?.close(); });

const op = (method: string, path: string, body?: unknown) => ({ method, path: `/app/demo${path}`, ...(body ? { body } : {}) });

describe('a failing atomic batch, seen from outside while it runs', () => {
  it('shows none of its writes to concurrent reads and lists, keeps a concurrent change, publishes nothing', { timeout: 120_000 }, async () => {
    for (const [id, title, code] of [['keep', 'kept', 'K'], ['gone', 'to delete', 'G'], ['held', 'held', 'H']]) {
      expect((await v2('POST', '/database/iso', { body: { _id: id, title, code } })).status).toBe(201);
    }
    const before = (await v2('GET', '/database/iso?limit=100')).body;
    const ghosts = Array.from({ length: 60 }, (_, i) => `ghost${i}`);
    const operations = [
      op('PATCH', '/database/iso/held', { title: 'changed by the batch' }),
      ...ghosts.slice(0, 30).map((id) => op('POST', '/database/iso', { _id: id, title: id })),
      op('PUT', '/database/iso/keep', { title: 'replaced', code: 'K2' }),
      op('DELETE', '/database/iso/gone'),
      ...ghosts.slice(30).map((id) => op('POST', '/database/iso', { _id: id, title: id })),
      op('POST', '/database/iso', { title: 'duplicate', code: 'H' }), // unique violation: the batch fails here
    ];
    // Each creation of the batch waits a few milliseconds (an injected latency) before it runs,
    // so that the requests below are answered while the batch is under way.
    expect((await t.consoleReq('PUT', `/workspaces/${t.workspace}/faults`, { rules: [{ match: { method: 'POST', path: '/database/iso' }, latencyMs: 3 }] })).status).toBe(200);
    const mark = events.length;

    let running = true;
    const seen = { lists: [] as Array<{ ids: string[]; total: number }>, keep: [] as unknown[], gone: [] as number[], ghost: [] as number[], held: [] as unknown[] };
    const reader = async () => {
      while (running) {
        const [list, keep, gone, ghost, held] = await Promise.all([
          v2('GET', '/database/iso?limit=100'), v2('GET', '/database/iso/keep'), v2('GET', '/database/iso/gone'),
          v2('GET', `/database/iso/${ghosts[0]}`), v2('GET', '/database/iso/held'),
        ]);
        seen.lists.push({ ids: list.body.data.map((r: { _id: string }) => r._id), total: list.body.meta.total });
        seen.keep.push(keep.body.data?.title);
        seen.gone.push(gone.status);
        seen.ghost.push(ghost.status);
        seen.held.push(held.body.data?.title);
      }
    };
    const batch = fetch(`${t.url}/v2/batch`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${t.adminToken}` },
      body: JSON.stringify({ atomic: true, operations }),
    }).then(async (res) => ({ status: res.status, body: await res.json() }));
    const readers = [reader(), reader()];
    // A change from outside to a record the batch changes: applied, whatever the batch does.
    const outside = v2('PATCH', '/database/iso/held', { body: { note: 'from outside' } });
    const result = await batch;
    running = false;
    await Promise.all(readers);
    await t.consoleReq('DELETE', `/workspaces/${t.workspace}/faults`);

    expect(result.status).toBe(409);
    expect(result.body.error.details.index).toBe(operations.length - 1);
    expect((await outside).status).toBe(200);

    expect(seen.lists.length).toBeGreaterThan(0);
    for (const list of seen.lists) {
      expect(list.ids.filter((id) => id.startsWith('ghost'))).toEqual([]);
      expect(list.ids).toContain('gone');
      expect(list.total).toBe(before.meta.total);
    }
    expect(new Set(seen.keep)).toEqual(new Set(['kept']));
    expect(new Set(seen.gone)).toEqual(new Set([200]));
    expect(new Set(seen.ghost)).toEqual(new Set([404]));
    expect(new Set(seen.held)).toEqual(new Set(['held']));

    // After it: the batch left nothing, the outside change stands, and only its event went out.
    const held = (await v2('GET', '/database/iso/held')).body.data;
    expect(held).toMatchObject({ title: 'held', note: 'from outside' });
    expect((await v2('GET', '/database/iso/keep')).body.data).toMatchObject({ title: 'kept', code: 'K' });
    expect((await v2('GET', '/database/iso/gone')).status).toBe(200);
    expect((await v2('GET', '/database/iso?limit=100')).body.meta.total).toBe(before.meta.total);
    const published = events.slice(mark).filter((e) => (e.data as { _id?: string } | undefined)?._id !== undefined);
    expect(published.map((e) => [e.type, (e.data as { _id: string })._id])).toEqual([['record.updated', 'held']]);
  });
});
