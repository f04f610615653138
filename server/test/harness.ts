// The one test harness: a real server on an ephemeral port (in memory unless a data folder is
// given), a fetch wrapper, and an admin token for the default workspace. With
// HOMEBASE_TEST_DRIVER=postgres, a server given no data folder runs on PostgreSQL instead: a
// fresh database of a throwaway cluster (HOMEBASE_TEST_PG_URL, started once by the PostgreSQL
// run's global setup, or else one per test process) and a temporary files folder.
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type ServerOptions, type StartedServer } from '../index.js';
import { insertUser } from '../modules/users/repo.js';
import { createSession } from '../modules/auth/sessions.js';
import { assertConforms, looseRequest } from './openapi-conformance.js';
import type { PgEngine } from '../storage/pg/engine.js';

/** The driver under test: `postgres` runs the suites' servers on PostgreSQL. */
export const TEST_DRIVER: 'embedded' | 'postgres' = process.env.HOMEBASE_TEST_DRIVER === 'postgres' ? 'postgres' : 'embedded';

let ownCluster: Promise<{ url: string; stop(): void }> | undefined;
let databases = 0;

/** A new empty database on the test cluster; resolves to its URL. */
export async function testDatabase(): Promise<string> {
  const { startPgCluster } = await import('./pg-cluster.js');
  const pg = (await import('pg')).default;
  const base = process.env.HOMEBASE_TEST_PG_URL ?? (await (ownCluster ??= startPgCluster())).url;
  const name = `t_${process.pid}_${++databases}_${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try { await client.query(`CREATE DATABASE "${name}"`); } finally { await client.end(); }
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Stops the cluster this test process started for testDatabase (if any): a suite calls it in
 *  its afterAll, as a test process may be ended without its exit handlers running. */
export async function stopOwnCluster(): Promise<void> {
  const c = ownCluster;
  ownCluster = undefined;
  (await c?.catch(() => undefined))?.stop();
}

/** Server options for a fresh PostgreSQL database and files folder; `remove` deletes the folder. */
export async function pgServerOptions(): Promise<{ options: ServerOptions; remove: () => void }> {
  const files = mkdtempSync(join(tmpdir(), 'homebase-files-'));
  return { options: { database: await testDatabase(), files }, remove: () => rmSync(files, { recursive: true, force: true }) };
}

export interface Res<T = any> { status: number; body: T; headers: Headers; text: string }

/** A signed-in user of the test workspace. */
export interface TestUser { _id: string; name: string; email: string; password: string; token: string }

export interface RequestOptions { token?: string | null; body?: unknown; headers?: Record<string, string>; raw?: BodyInit }

export interface TestServer {
  srv: StartedServer;
  /** `http://127.0.0.1:PORT/api` */
  url: string;
  /** `${url}/app/${workspace}` */
  api: string;
  workspace: string;
  consoleToken: string;
  adminToken: string;
  adminEmail: string;
  adminPassword: string;
  /** A request to the workspace API; the admin token is sent unless `token` says otherwise (null: none). */
  req<T = any>(method: string, path: string, options?: RequestOptions): Promise<Res<T>>;
  /** A new signed-in user of the workspace, inserted straight through the users repo (so suites
   *  do not depend on the users routes). The email is unique unless given. */
  user(name?: string, options?: { role?: string; email?: string }): Promise<TestUser>;
  /** A request to the console API (`/api/...`) with the console token. */
  consoleReq<T = any>(method: string, path: string, body?: unknown): Promise<Res<T>>;
  close(): Promise<void>;
}

let userCounter = 0;

export const TEST_ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };

/** The PostgreSQL engine under a server (its database, its relay), undefined on the embedded
 *  stores: for tests that look at the driver itself. */
export function pgEngineOf(srv: StartedServer): PgEngine | undefined {
  const engine = srv.ctx.registry.engine;
  return 'db' in engine ? engine as PgEngine : undefined; // a type import: the embedded runs never load the pg client
}

export async function startTestServer(options: ServerOptions = {}): Promise<TestServer> {
  const onPg = TEST_DRIVER === 'postgres' && options.data === undefined && options.inMemory === undefined && options.database === undefined;
  const pgSetup = onPg ? await pgServerOptions() : undefined;
  const srv = await startServer({
    port: 0, ...(pgSetup ? pgSetup.options : { inMemory: options.data === undefined && options.database === undefined }),
    bcryptCost: 4, loginRateLimit: false,
    adminEmail: TEST_ADMIN.email, adminPassword: TEST_ADMIN.password, ...options,
  }).catch((err) => { pgSetup?.remove(); throw err; });
  if (onPg && !pgEngineOf(srv)) throw new Error('HOMEBASE_TEST_DRIVER=postgres, yet the server is not on PostgreSQL');
  const workspace = options.workspace ?? 'demo';
  const api = `${srv.url}/app/${workspace}`;
  const send = async (method: string, url: string, token: string | null | undefined, options: RequestOptions = {}) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (token) headers.authorization = `Bearer ${token}`;
    let body: BodyInit | undefined = options.raw;
    if (options.body !== undefined) { body = JSON.stringify(options.body); headers['content-type'] ??= 'application/json'; }
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : undefined; } catch { /* not JSON */ }
    const answer = { status: res.status, body: parsed as any, headers: res.headers, text };
    // Workspace API answers must agree with the workspace's OpenAPI document.
    assertConforms(srv, method, url, answer);
    if (process.env.HOMEBASE_TEST_OPENAPI_LOOSE) {
      const loose = looseRequest(srv, method, url, options.body, res.status);
      if (loose) appendFileSync(process.env.HOMEBASE_TEST_OPENAPI_LOOSE, `${loose}\n`);
    }
    return answer;
  };
  const tokenRes = await send('POST', `${srv.url}/workspaces/${workspace}/token`, srv.consoleToken);
  if (tokenRes.status !== 200) throw new Error(`could not mint an admin token: ${tokenRes.text}`);
  const t: TestServer = {
    srv, url: srv.url, api, workspace, consoleToken: srv.consoleToken, adminToken: tokenRes.body.token,
    adminEmail: options.adminEmail ?? TEST_ADMIN.email, adminPassword: options.adminPassword ?? TEST_ADMIN.password,
    req: (method, path, o = {}) => send(method, `${api}${path}`, o.token === undefined ? t.adminToken : o.token, o),
    user: async (name = 'User', o = {}) => {
      const ws = srv.ctx.registry.require(workspace);
      const email = o.email ?? `${name.toLowerCase().replace(/\W+/g, '') || 'user'}-${++userCounter}@example.test`;
      const password = 'user-password-1';
      const user = await insertUser(ws, { email, password, name, role: o.role ?? 'user' }, 4);
      const { token } = await createSession(srv.ctx, ws, user);
      return { _id: user._id, name, email: user.email, password, token };
    },
    consoleReq: (method, path, body) => send(method, `${srv.url}${path}`, srv.consoleToken, body === undefined ? {} : { body }),
    close: () => srv.close().finally(() => pgSetup?.remove()),
  };
  return t;
}

/** A fresh temporary data folder, removed by the returned function. */
export function tempDataDir(prefix = 'homebase-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
