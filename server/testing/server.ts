// The server side of the test helpers: one Homebase per test worker (process), started in it
// on a free port, in memory, or the one a global setup started (its address in the
// environment), and the global setup itself.
import { startServer, type Homebase, type ServerOptions } from '../public-api.js';
import { createFork, type ForkOptions, type HomebaseConnection, type HomebaseFork } from './client.js';

/** The first admin of the helpers' servers (every fork of the default workspace has it too). */
export const TEST_ADMIN = { email: 'admin@example.com', password: 'homebase-test-admin' } as const;

/** Environment variables through which a global setup tells the workers where its server is. */
export const ENV_URL = 'HOMEBASE_TEST_URL';
export const ENV_TOKEN = 'HOMEBASE_TEST_CONSOLE_TOKEN';
export const ENV_WORKSPACE = 'HOMEBASE_TEST_WORKSPACE';

export interface HomebaseTestServer extends HomebaseConnection {
  /** The server when this process started it (undefined when it is a global setup's). */
  server?: Homebase;
  /** A fork of the default workspace (or `options.from`), deleted by `fork.delete()`. */
  fork(options?: ForkOptions): Promise<HomebaseFork>;
  /** Stops the server if this process started it. */
  close(): Promise<void>;
}

const isTestRun = () => !!process.env.VITEST || process.env.NODE_ENV === 'test';

/** Starts a Homebase for tests: a free port, in memory (unless `data` or `database` is given),
 *  the first admin `TEST_ADMIN`, and a fast password hash in a test run (Vitest, Jest). Options
 *  are those of `startServer` (`seed` fills the default workspace). */
export async function startTestServer(options: ServerOptions = {}): Promise<HomebaseTestServer> {
  const server = await startServer({
    port: 0,
    ...(options.data === undefined && options.database === undefined ? { inMemory: true } : {}),
    adminEmail: TEST_ADMIN.email, adminPassword: TEST_ADMIN.password,
    ...(isTestRun() ? { bcryptCost: 4 } : {}),
    ...options,
  });
  const conn: HomebaseConnection = { url: server.url, consoleToken: server.consoleToken, workspace: server.workspaces[0] ?? options.workspace ?? 'demo' };
  if (options.workspace) conn.workspace = options.workspace;
  let closing: Promise<void> | undefined;
  return { ...conn, server, fork: (o) => createFork(conn, o), close: () => (closing ??= server.close()) };
}

/** The server of a global setup, from the environment; undefined when none ran. */
export function serverFromEnv(env: Record<string, string | undefined> = process.env): HomebaseTestServer | undefined {
  const url = env[ENV_URL];
  const consoleToken = env[ENV_TOKEN];
  if (!url || !consoleToken) return undefined;
  const conn: HomebaseConnection = { url, consoleToken, workspace: env[ENV_WORKSPACE] || 'demo' };
  return { ...conn, fork: (o) => createFork(conn, o), close: async () => undefined };
}

const WORKER = Symbol.for('homebase.testing.workerServer');
type Holder = { [WORKER]?: Promise<HomebaseTestServer> };

/** This worker's server, started once per process (or the global setup's when its address is in
 *  the environment) and stopped when the process exits. */
export function workerServer(options: ServerOptions = {}): Promise<HomebaseTestServer> {
  const holder = globalThis as Holder;
  const existing = holder[WORKER];
  if (existing) return existing;
  const fromEnv = serverFromEnv();
  const started = fromEnv ? Promise.resolve(fromEnv) : startTestServer(options);
  holder[WORKER] = started;
  started.then((s) => {
    // A worker's server must not keep the worker alive once its tests are done: the runner ends
    // the worker, and the server (in memory) goes with it; closed on the way out when possible.
    (s.server as { server?: { unref(): void } } | undefined)?.server?.unref();
    process.once('beforeExit', () => { void s.close(); });
  }, () => { delete holder[WORKER]; });
  return started;
}

/** A global setup (Jest `globalSetup`, Vitest `globalSetup`, Playwright `globalSetup`): starts
 *  one server for the whole run and puts its address in the environment, where every worker's
 *  `workerServer` finds it. Resolves to the teardown (Vitest and Playwright call it; Jest calls
 *  `globalTeardown`). */
export async function globalSetup(options: ServerOptions = {}): Promise<() => Promise<void>> {
  const s = await startTestServer(options);
  process.env[ENV_URL] = s.url;
  process.env[ENV_TOKEN] = s.consoleToken;
  process.env[ENV_WORKSPACE] = s.workspace;
  (globalThis as { [GLOBAL]?: HomebaseTestServer })[GLOBAL] = s;
  return () => globalTeardown();
}

const GLOBAL = Symbol.for('homebase.testing.globalServer');

/** Stops the server `globalSetup` started (Jest's `globalTeardown`). */
export async function globalTeardown(): Promise<void> {
  const holder = globalThis as { [GLOBAL]?: HomebaseTestServer };
  const s = holder[GLOBAL];
  delete holder[GLOBAL];
  await s?.close();
}
