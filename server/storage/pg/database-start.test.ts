// Starting on PostgreSQL: a bad or unreachable URL is one line naming the problem and exit 1
// (never the password), the driver creates its schema on an empty database and refuses one
// written by a newer Homebase.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, serveJson, spawnCli } from '../../test/spawn.js';
import { pgBin, startPgCluster, type PgCluster } from '../../test/pg-cluster.js';
import { createServer, DatabaseError } from '../../index.js';
import { SCHEMA_VERSION } from './schema.js';
import { PgDatabase } from './database.js';
import { createServer as listen } from 'node:net';

async function closedPort(): Promise<number> {
  const s = listen();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function serveFails(args: string[], env: Record<string, string> = {}) {
  const r = await exited(spawnCli(['serve', '--port', '0', ...args], env));
  expect(r.code).toBe(1);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  return lines[0];
}

describe('bad database URLs', () => {
  it('names the problem in one line and exits 1', async () => {
    const port = await closedPort();
    // In parallel: each is a whole CLI start.
    const [scheme, notUrl, noDb, refused, fromEnv] = await Promise.all([
      serveFails(['--database', 'mysql://u@h/db']),
      serveFails(['--database', 'nonsense']),
      serveFails(['--database', 'postgres://127.0.0.1:5432']),
      serveFails(['--database', `postgres://app:s3cret-pw@127.0.0.1:${port}/db`]),
      serveFails([], { HOMEBASE_DATABASE_URL: `postgres://127.0.0.1:${port}/db` }),
    ]);
    expect(scheme).toMatch(/unsupported scheme 'mysql'/);
    expect(notUrl).toMatch(/is not a URL/);
    expect(noDb).toMatch(/names no database/);
    expect(refused).toMatch(/refused the connection/);
    expect(refused).not.toContain('s3cret-pw');
    expect(fromEnv).toMatch(/refused the connection/);
  }, 60_000);

  it('refuses combinations that make no sense', async () => {
    const [r, f] = await Promise.all([
      exited(spawnCli(['serve', '--database', 'postgres://h/db', '--in-memory'])),
      exited(spawnCli(['serve', '--files', '/tmp/x'])),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--database cannot be combined/);
    expect(f.code).toBe(2);
    expect(f.stderr).toMatch(/--files DIR is the uploaded files folder of --database/);
  });

  it('startServer / createServer reject with a DatabaseError', async () => {
    await expect(createServer({ database: 'http://x/y' })).rejects.toBeInstanceOf(DatabaseError);
    await expect(createServer({ database: `postgres://127.0.0.1:${await closedPort()}/db` })).rejects.toThrow(/refused the connection/);
  });
});

describe.skipIf(!pgBin)('the driver\'s schema', () => {
  let cluster: PgCluster;
  beforeAll(async () => { cluster = await startPgCluster(); }, 60_000);
  afterAll(() => cluster?.stop());

  it('is created on an empty database, once, even by processes starting together', async () => {
    const url = await cluster.createDatabase('schema');
    const dbs = await Promise.all([PgDatabase.open(url), PgDatabase.open(url), PgDatabase.open(url)]);
    const { rows } = await dbs[0].query<{ version: number }>('SELECT version FROM homebase_schema');
    expect(rows).toEqual([{ version: SCHEMA_VERSION }]);
    await Promise.all(dbs.map((d) => d.close()));
  });

  it('refuses a database written by a newer Homebase', async () => {
    const url = await cluster.createDatabase('newer');
    await (await PgDatabase.open(url)).close();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('UPDATE homebase_schema SET version = $1', [SCHEMA_VERSION + 1]);
    await c.end();
    expect(await serveFails(['--database', url])).toMatch(new RegExp(`schema version ${SCHEMA_VERSION + 1}, newer than this Homebase understands`));
  });

  it('serves the API from PostgreSQL through the CLI, files in --files', async () => {
    const url = await cluster.createDatabase('serve');
    const files = mkdtempSync(join(tmpdir(), 'homebase-files-'));
    const { child, line } = await serveJson(['--port', '0', '--database', url, '--files', files, '--admin-password', 'secret-pass-1']);
    try {
      expect((await fetch(`${line.url}/health`)).status).toBe(200);
      const login = await fetch(`${line.url}/app/demo/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password: 'secret-pass-1' }) });
      expect(login.status, await login.clone().text()).toBe(200);
      const { token } = await login.json() as { token: string };
      const made = await fetch(`${line.url}/app/demo/database`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ _id: 'notes', name: 'Notes', setting: { read: 'public', write: 'private', update: 'only-user' } }) });
      expect(made.status).toBe(201);
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const { rows } = await c.query<{ name: string }>(`SELECT name FROM homebase_stores WHERE workspace = 'demo' ORDER BY name`);
      await c.end();
      expect(rows.map((r) => r.name)).toContain('users');
    } finally {
      child.kill('SIGTERM');
      await exited(child);
      rmSync(files, { recursive: true, force: true });
    }
  }, 60_000);
});
