// SIGTERM / SIGINT while the disk is full never crash: the server says what it could not
// flush, releases the lock and exits 1; every acknowledged change is still there at the next
// start. (The disk is "filled" through disk.ts's test hook, in the child process.)
import { afterAll, expect, it } from 'vitest';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, tempDataDir, TEST_ADMIN } from '../test/harness.js';
import { serveJson, exited } from '../test/spawn.js';

const data = tempDataDir('hb-shutdown-');
afterAll(() => data.remove());

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  it(`${signal} with a full disk: no crash, what was not flushed is named, lock released, exit 1`, async () => {
    const flag = join(data.dir, `full-${signal}`);
    const dir = join(data.dir, signal);
    const { child, line } = await serveJson(['--data', dir, '--port', '0', '--admin-password', TEST_ADMIN.password], { HOMEBASE_TEST_DISK_FAULT_FILE: flag });
    const end = exited(child);
    const tokenRes = await fetch(`${line.url}/workspaces/demo/token`, { method: 'POST', headers: { authorization: `Bearer ${line.consoleToken}` } });
    const token = (await tokenRes.json()).token as string;
    const req = (method: string, path: string, body?: unknown) => fetch(`${line.url}/app/demo${path}`, {
      method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect((await req('POST', '/database', { _id: 'notes', setting: { read: 'private', write: 'private', update: 'private' } })).status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await req('POST', '/database/notes', { _id: `n${i}` })).status).toBe(201);
    writeFileSync(flag, 'ENOSPC');
    expect((await req('POST', '/database/notes', { _id: 'refused' })).status).toBe(507);
    child.kill(signal);
    const { code, stderr } = await end;
    expect(code).toBe(1);
    expect(stderr).toMatch(/not everything could be flushed/);
    expect(stderr).toMatch(/notes store: .*full/);
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(existsSync(join(dir, '.lock'))).toBe(false);

    rmSync(flag);
    const t = await startTestServer({ data: dir });
    try {
      const ids = (await t.req('GET', '/database/notes?limit=100')).body.data.map((d: { _id: string }) => d._id).sort();
      expect(ids).toEqual(['n0', 'n1', 'n2', 'n3', 'n4']);
    } finally {
      await t.close();
    }
  }, 120_000);
}
