// The toolkit outside one HTTP call: the request log's shape and bound, seeds at start, the
// startServer helpers, disk snapshots across a restart, and the export / import CLI.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const temps: Array<() => void> = [];
afterAll(() => { for (const rm of temps) rm(); });

const SEED = {
  format: 'homebase-dump', version: 1,
  schema: { collections: [{ _id: 'people', setting: { read: 'public', write: 'private', update: 'private' } }] },
  records: { people: [{ _id: 'ada', name: 'Ada' }, { _id: 'alan', name: 'Alan' }] },
  users: [{ _id: 'bob', email: 'bob@example.com', password: 'bob-password-1' }],
};

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, HOMEBASE_LOG_LEVEL: 'silent' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('request log', () => {
  it('keeps the newest requests, bounded, without tokens in paths', async () => {
    const t = await startTestServer({ requestLogSize: 5 });
    try {
      await t.req('POST', '/database', { body: { _id: 'people', setting: { read: 'public', write: 'public', update: 'private' } } });
      for (let i = 0; i < 6; i++) await t.req('GET', `/database/people?limit=${i}`, { token: null });
      await t.req('GET', '/database/nothing', { token: null });
      await t.req('GET', '/storage/none/download?token=SECRET123&x=1', { token: null });
      const log = await t.consoleReq('GET', '/workspaces/demo/requests');
      expect(log.status).toBe(200);
      expect(log.body.meta.total).toBe(5);
      const [last, notFound, ...rest] = log.body.data;
      expect(last).toMatchObject({ method: 'GET', path: '/api/app/demo/storage/none/download?x=1', status: expect.any(Number), durationMs: expect.any(Number), time: expect.any(String) });
      expect(JSON.stringify(log.body)).not.toContain('SECRET123');
      expect(notFound).toMatchObject({ path: '/api/app/demo/database/nothing', status: 404 });
      expect(rest[0]).toMatchObject({ path: '/api/app/demo/database/people?limit=5', status: 200, accessRule: expect.any(String) });
      expect(rest.map((e: { path: string }) => e.path)).toEqual(['/api/app/demo/database/people?limit=5', '/api/app/demo/database/people?limit=4', '/api/app/demo/database/people?limit=3']);
      expect(new Date(last.time).getTime()).toBeGreaterThanOrEqual(new Date(notFound.time).getTime());
      const page = await t.consoleReq('GET', '/workspaces/demo/requests?limit=2&offset=1');
      expect(page.body.data.map((e: { _id: string }) => e._id)).toEqual(log.body.data.slice(1, 3).map((e: { _id: string }) => e._id));
    } finally { await t.close(); }
  });
});

describe('request log detail', () => {
  it('shows one request with its headers, credentials hidden; 404 for an unknown id', async () => {
    const t = await startTestServer();
    try {
      const res = await fetch(`${t.api}/database`, { headers: { authorization: `Bearer ${t.adminToken}`, 'x-trace': 'abc', cookie: 'sid=secret-cookie' } });
      expect(res.status).toBe(200);
      const [entry] = (await t.consoleReq('GET', '/workspaces/demo/requests?limit=1')).body.data;
      expect(entry.headers).toBeUndefined(); // lists stay light
      const detail = await t.consoleReq('GET', `/workspaces/demo/requests/${entry._id}`);
      expect(detail.status).toBe(200);
      expect(detail.body).toMatchObject({ _id: entry._id, method: 'GET', path: '/api/app/demo/database', status: 200, durationMs: expect.any(Number) });
      expect(detail.body.headers).toMatchObject({ authorization: 'Bearer ***', cookie: '***', 'x-trace': 'abc' });
      expect(JSON.stringify(detail.body)).not.toContain(t.adminToken);
      expect(JSON.stringify(detail.body)).not.toContain('secret-cookie');
      const missing = await t.consoleReq('GET', '/workspaces/demo/requests/r999999');
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('NOT_FOUND');
    } finally { await t.close(); }
  });
});

describe('request log queries', () => {
  it('filters, sorts, selects and counts like every list (filter[status]=401 is applied)', async () => {
    const t = await startTestServer();
    try {
      await t.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'private', write: 'private', update: 'private' } } });
      for (let i = 0; i < 3; i++) await t.req('GET', '/database/notes', { token: null }); // 401
      for (let i = 0; i < 2; i++) await t.req('GET', '/database/notes'); // 200
      await t.req('GET', '/database/ghost'); // 404
      const only401 = await t.consoleReq('GET', '/workspaces/demo/requests?filter[status]=401');
      expect(only401.status).toBe(200);
      expect(only401.body.meta.total).toBe(3);
      expect(only401.body.data.every((e: { status: number }) => e.status === 401)).toBe(true);
      const errors = await t.consoleReq('GET', '/workspaces/demo/requests?filter[status][$gte]=400&sort=status&fields=status,path');
      expect(errors.body.data.map((e: { status: number }) => e.status)).toEqual([401, 401, 401, 404]);
      expect(Object.keys(errors.body.data[0]).sort()).toEqual(['_id', 'path', 'status']);
      const count = await t.consoleReq('GET', '/workspaces/demo/requests?filter[method]=POST&limit=0');
      expect(count.body).toEqual({ data: [], meta: { total: 1, limit: 0, offset: 0 } });
      const starts = await t.consoleReq('GET', '/workspaces/demo/requests?filter[path][$startsWith]=/api/app/demo/database/ghost');
      expect(starts.body.data.map((e: { status: number }) => e.status)).toEqual([404]);
      // Newest first by default.
      const all = (await t.consoleReq('GET', '/workspaces/demo/requests')).body.data;
      expect(all[0].path).toBe('/api/app/demo/database/ghost');
      expect((await t.consoleReq('GET', '/workspaces/demo/requests?filter[status][$regex]=4')).status).toBe(400);
      expect((await t.consoleReq('GET', '/workspaces/demo/requests?filter[status]=abc')).status).toBe(400);
    } finally { await t.close(); }
  });
});

describe('from code', () => {
  it('seeds at start and offers snapshot / restore / reset', async () => {
    const t: TestServer = await startTestServer({ seed: SEED });
    try {
      expect((await t.req('GET', '/database/people', { token: null })).body.data.map((r: { name: string }) => r.name)).toEqual(['Ada', 'Alan']);
      expect((await t.req('POST', '/auth/login', { token: null, body: { email: 'bob@example.com', password: 'bob-password-1' } })).status).toBe(200);
      expect((await t.req('GET', '/auth/me')).body.email).toBe(t.adminEmail); // the admin survives the seed

      await t.srv.snapshot('seeded');
      await t.req('DELETE', '/database/people/ada');
      await t.srv.restore('seeded');
      expect((await t.req('GET', '/database/people')).body.meta.total).toBe(2);
      await t.srv.reset({ keepSchema: true });
      expect((await t.req('GET', '/database/people')).body.meta.total).toBe(0);
      await t.srv.reset();
      expect((await t.req('GET', '/database/people')).status).toBe(404);
    } finally { await t.close(); }
  });

  it('refuses to start on a bad seed, naming the problem', async () => {
    await expect(startTestServer({ seed: { ...SEED, records: { people: [{ _id: 'fields' }] } } })).rejects.toThrow(/records\.people\[0\]\._id/);
  });

  it('keeps disk snapshots across a restart; a seed leaves a workspace with data alone', async () => {
    const { dir, remove } = tempDataDir();
    temps.push(remove);
    const seedDir = tempDataDir('homebase-seed-');
    temps.push(seedDir.remove);
    const seedFile = join(seedDir.dir, 'fixtures.json');
    writeFileSync(seedFile, JSON.stringify(SEED));
    let t = await startTestServer({ data: dir, seed: seedFile });
    await t.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'disk' });
    await t.req('DELETE', '/database/people/ada');
    await t.close();

    t = await startTestServer({ data: dir, seed: seedFile });
    try {
      expect((await t.req('GET', '/database/people')).body.meta.total).toBe(1); // not re-seeded
      expect((await t.consoleReq('GET', '/workspaces/demo/snapshots')).body.data.map((s: { name: string }) => s.name)).toEqual(['disk']);
      expect((await t.consoleReq('POST', '/workspaces/demo/snapshots/disk/restore')).status).toBe(200);
      expect((await t.req('GET', '/database/people')).body.meta.total).toBe(2);
    } finally { await t.close(); }
  });
});

describe('CLI export / import', () => {
  it('exports a data folder and imports it into another, with no server running', async () => {
    const a = tempDataDir();
    const b = tempDataDir();
    temps.push(a.remove, b.remove);
    const t = await startTestServer({ data: a.dir, seed: SEED });
    await t.close();

    const exported = await cli(['export', '--data', a.dir, '--workspace', 'demo']);
    expect(exported.code).toBe(0);
    const dump = JSON.parse(exported.stdout);
    expect(dump.records.people).toHaveLength(2);
    const file = join(b.dir, 'dump.json');
    writeFileSync(file, exported.stdout);

    const imported = await cli(['import', '--data', join(b.dir, 'data'), '--workspace', 'copy', file]);
    expect(imported.code).toBe(0);
    const t2 = await startTestServer({ data: join(b.dir, 'data'), workspace: 'copy' });
    try {
      expect((await t2.req('GET', '/database/people')).body.data.map((r: { _id: string }) => r._id)).toEqual(['ada', 'alan']);
      expect((await t2.req('POST', '/auth/login', { token: null, body: { email: 'bob@example.com', password: 'bob-password-1' } })).status).toBe(200);
    } finally { await t2.close(); }

    writeFileSync(file, JSON.stringify({ ...dump, version: 7 }));
    const bad = await cli(['import', '--data', a.dir, file]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/version/);
    expect((await cli(['export', '--data', a.dir, '--workspace', 'ghost'])).code).toBe(1);
  });
});
