// For runners with beforeEach / afterEach hooks (Jest, Vitest, Mocha): registers the hooks that
// give each test a fork of the worker's server and delete it afterwards.
import type { ServerOptions } from '../public-api.js';
import type { ForkOptions, HomebaseFork } from './client.js';
import { workerServer, type HomebaseTestServer } from './server.js';

type Hook = (fn: () => Promise<void>, timeout?: number) => unknown;
export interface Hooks { beforeAll: Hook; beforeEach: Hook; afterEach: Hook }

export interface HomebaseHandle {
  /** The current test's fork (between beforeEach and afterEach). */
  readonly fork: HomebaseFork;
  /** The worker's server. */
  readonly server: HomebaseTestServer;
}

/** `const hb = useHomebase({ beforeAll, beforeEach, afterEach })`, then `hb.fork` in a test. */
export function useHomebase(hooks: Hooks, options: { server?: ServerOptions; fork?: ForkOptions } = {}): HomebaseHandle {
  let server: HomebaseTestServer | undefined;
  let fork: HomebaseFork | undefined;
  hooks.beforeAll(async () => { server = await workerServer(options.server); }, 30_000);
  hooks.beforeEach(async () => { fork = await server!.fork(options.fork); }, 30_000);
  hooks.afterEach(async () => {
    const f = fork;
    fork = undefined;
    await f?.delete();
  }, 30_000);
  return {
    get fork() {
      if (!fork) throw new Error('Homebase: the fork exists inside a test only (between beforeEach and afterEach)');
      return fork;
    },
    get server() {
      if (!server) throw new Error('Homebase: the server is there once beforeAll ran');
      return server;
    },
  };
}
