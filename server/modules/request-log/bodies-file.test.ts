// The request log's bodies (bounded, secrets masked), the console's own requests marked, and the
// log kept on disk across a restart (bounded).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';

let t: TestServer;
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { await t.close(); });

async function entries(server: TestServer, query = '') {
  const res = await server.consoleReq('GET', `/workspaces/${server.workspace}/requests${query}`);
  expect(res.status).toBe(200);
  return res.body.data as Array<Record<string, any>>;
}

async function detail(server: TestServer, id: string) {
  const res = await server.consoleReq('GET', `/workspaces/${server.workspace}/requests/${id}`);
  expect(res.status).toBe(200);
  return res;
}

describe('request log bodies', () => {
  it('shows request and response bodies with passwords, tokens and secret values masked', async () => {
    const user = await t.user('Bodies');
    const login = await t.req('POST', '/auth/login', { token: null, body: { email: user.email, password: user.password } });
    expect(login.status).toBe(200);
    const entry = (await entries(t)).find((e) => e.path.endsWith('/auth/login'))!;
    const d = await detail(t, entry._id);
    expect(d.body.requestBody).toEqual({ json: { email: user.email, password: '***' } });
    expect(d.body.responseBody.json).toMatchObject({ token: '***', refreshToken: '***', user: { email: user.email } });
    for (const secret of [user.password, login.body.token, login.body.refreshToken]) expect(d.text).not.toContain(secret);

    expect((await t.req('POST', '/credentials', { body: { name: 'STRIPE_KEY', value: 'sk_live_value_42' } })).status).toBe(201);
    const cred = (await entries(t)).find((e) => e.path.endsWith('/credentials') && e.method === 'POST')!;
    const cd = await detail(t, cred._id);
    expect(cd.body.requestBody.json).toEqual({ name: 'STRIPE_KEY', value: '***' });
    expect(cd.text).not.toContain('sk_live_value_42');
  });

  it('cuts long bodies at 16 KiB, still masking what is left', async () => {
    await t.req('POST', '/database', { body: { _id: 'big', setting: { read: 'private', write: 'private', update: 'private' } } });
    const long = 'x'.repeat(40_000);
    expect((await t.req('POST', '/database/big', { body: { text: long, password: 'hunter2-hunter2' } })).status).toBe(201);
    const entry = (await entries(t)).find((e) => e.path.endsWith('/database/big') && e.method === 'POST')!;
    const d = await detail(t, entry._id);
    expect(d.body.requestBody.truncated).toBe(true);
    expect(d.body.requestBody.text.length).toBeLessThanOrEqual(16 * 1024);
    expect(d.body.responseBody.truncated).toBe(true);
    expect(d.body.responseBody.text.length).toBeLessThanOrEqual(16 * 1024);
    expect(d.text).not.toContain('hunter2-hunter2');
  });

  it("marks the console's own requests, which a filter then hides", async () => {
    await t.req('GET', '/database', { headers: { 'x-homebase-console': '1' } });
    await t.req('GET', '/database?from=app');
    const all = await entries(t);
    expect(all.find((e) => e.path.endsWith('/database'))).toMatchObject({ console: true });
    expect(all.find((e) => e.path.endsWith('/database?from=app'))!.console).toBeUndefined();
    const apps = await entries(t, '?filter[console][$ne]=true&limit=500');
    expect(apps.some((e) => e.console)).toBe(false);
    expect(apps.some((e) => e.path.endsWith('/database?from=app'))).toBe(true);
  });
});

describe('request log on disk', () => {
  it('survives a restart, bounded, without secrets in its file', async () => {
    const data = tempDataDir();
    try {
      let s = await startTestServer({ data: data.dir, requestLogSize: 5 });
      const user = await s.user('Disk');
      await s.req('POST', '/auth/login', { token: null, body: { email: user.email, password: user.password } });
      for (let i = 0; i < 14; i++) await s.req('GET', `/database?n=${i}`);
      const before = await entries(s);
      expect(before).toHaveLength(5);
      await s.close();

      const file = readFileSync(join(data.dir, 'workspaces', 'demo', 'request-log.jsonl'), 'utf8');
      expect(file.trim().split('\n').length).toBeLessThanOrEqual(10);
      expect(file).not.toContain(user.password);

      s = await startTestServer({ data: data.dir, requestLogSize: 5 });
      const after = await entries(s);
      // What was there before, plus the new server's own admin-token request is not in the
      // workspace API's log (console API): the same five.
      expect(after.map((e) => e._id)).toEqual(before.map((e) => e._id));
      expect((await detail(s, after[0]._id)).body).toMatchObject({ path: before[0].path, headers: expect.any(Object) });
      await s.req('GET', '/database?n=new');
      const next = await entries(s);
      expect(next[0].path).toMatch(/n=new$/);
      expect(Number(next[0]._id.slice(1))).toBeGreaterThan(Number(before[0]._id.slice(1)));

      // A reset empties it, on disk too.
      expect((await s.consoleReq('POST', `/workspaces/${s.workspace}/reset`, {})).status).toBeLessThan(300);
      await s.close();
      s = await startTestServer({ data: data.dir, requestLogSize: 5 });
      expect(await entries(s)).toHaveLength(0);
      await s.close();
    } finally { data.remove(); }
  });
});
