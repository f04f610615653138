// The request log's live tail over HTTP, read by a real SSE client (`eventsource`, given the
// console token through its fetch hook, as the console does).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventSource } from 'eventsource';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { waitFor } from '../../test/receiver.js';

let t: TestServer;
const sources: EventSource[] = [];
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { for (const s of sources) s.close(); await t.close(); });

interface Tail { source: EventSource; entries: Array<Record<string, unknown>>; raw: string[]; cleared: number; opened: Promise<void> }

function tail(query = '', token = t.consoleToken, workspace = t.workspace): Tail {
  const source = new EventSource(`${t.url}/workspaces/${workspace}/requests/stream${query}`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${token}` } }),
  });
  sources.push(source);
  const out: Tail = { source, entries: [], raw: [], cleared: 0, opened: new Promise((resolve) => source.addEventListener('open', () => resolve())) };
  source.addEventListener('request', (e) => { out.raw.push(e.data); out.entries.push(JSON.parse(e.data)); });
  source.addEventListener('cleared', () => { out.cleared++; });
  return out;
}

describe('request log tail', () => {
  it('pushes each request as it is served, without its Authorization value', async () => {
    const live = tail();
    await live.opened;
    const res = await t.req('GET', '/database/missing-one');
    expect(res.status).toBe(404);
    const entry = await waitFor(() => live.entries.find((e) => e.path === `/api/app/${t.workspace}/database/missing-one`), 5000, 'the pushed entry');
    expect(entry).toMatchObject({ method: 'GET', status: 404 });
    expect(entry._id).toMatch(/^r\d+$/);
    expect(typeof entry.durationMs).toBe('number');
    // The list's shape: no headers, so no credential can travel on the stream.
    expect(entry).not.toHaveProperty('headers');
    expect(live.raw.join('\n')).not.toContain(t.adminToken);
    // The same entry is the newest of the list.
    const list = await t.consoleReq('GET', `/workspaces/${t.workspace}/requests?limit=1`);
    expect(list.body.data[0]).toEqual(entry);
    live.source.close();
  });

  it('applies the list filters to what it pushes', async () => {
    const failures = tail('?filter[status][$gte]=400&filter[path][$contains]=tailfilter');
    await failures.opened;
    await t.req('GET', '/database/tailfilter-missing');
    await t.req('GET', '/database'); // 200, other path
    await t.req('GET', '/database?tailfilter=1'); // 200, matching path
    await waitFor(() => failures.entries.length > 0, 5000, 'the 404');
    // Later requests are logged after the ones above: once this one arrives, none other came.
    await t.req('GET', '/database/tailfilter-last');
    await waitFor(() => failures.entries.length > 1, 5000, 'the last 404');
    expect(failures.entries.map((e) => [e.status, e.path])).toEqual([
      [404, `/api/app/${t.workspace}/database/tailfilter-missing`],
      [404, `/api/app/${t.workspace}/database/tailfilter-last`],
    ]);
    failures.source.close();
  });

  it('says when the log is cleared by a reset', async () => {
    const live = tail();
    await live.opened;
    expect((await t.consoleReq('POST', `/workspaces/${t.workspace}/reset`, { keepSchema: true })).status).toBe(200);
    await waitFor(() => live.cleared === 1, 5000, 'the cleared event');
    live.source.close();
  });

  it('is guarded by the console token and checks its filters and workspace', async () => {
    const path = `${t.url}/workspaces/${t.workspace}/requests/stream`;
    const none = await fetch(path);
    expect(none.status).toBe(401);
    expect((await none.json()).error.code).toBe('UNAUTHORIZED');
    // A workspace admin's token is not the console token.
    const admin = await fetch(path, { headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(admin.status).toBe(401);
    const auth = { authorization: `Bearer ${t.consoleToken}` };
    const badFilter = await fetch(`${path}?filter[status][$nope]=1`, { headers: auth });
    expect(badFilter.status).toBe(400);
    expect((await badFilter.json()).error.code).toBe('BAD_REQUEST');
    const unknown = await fetch(`${t.url}/workspaces/nope/requests/stream`, { headers: auth });
    expect(unknown.status).toBe(404);
    // The detail route still takes ids.
    expect((await fetch(`${t.url}/workspaces/${t.workspace}/requests/r999999`, { headers: auth })).status).toBe(404);
  });

  it('ends when its workspace is deleted and when the server stops', async () => {
    expect((await t.consoleReq('POST', '/workspaces', { _id: 'tailgone', admin: { email: 'a@example.com', password: 'admin-password-1' } })).status).toBe(201);
    // The answer's head arrives once the tail is registered; its text ends when the server ends it.
    const opened = async (path: string, token = t.consoleToken) => {
      const res = await fetch(path, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      return res;
    };
    const gone = await opened(`${t.url}/workspaces/tailgone/requests/stream`);
    const other = await opened(`${t.url}/workspaces/${t.workspace}/requests/stream`);
    expect((await t.consoleReq('DELETE', '/workspaces/tailgone')).status).toBe(204);
    expect(await gone.text()).toContain('retry:');
    // The server's graceful close does not wait for open tails (else it would take 10 s).
    const own = await startTestServer();
    const stream = await opened(`${own.url}/workspaces/${own.workspace}/requests/stream`, own.consoleToken);
    await own.close();
    expect(await stream.text()).toContain('retry:');
    await other.body?.cancel();
  });
});
