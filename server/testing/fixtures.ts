// Fixtures for `test.extend` (Vitest and Playwright share the shape): `homebase`, one server per
// worker, and `fork`, a fork of its default workspace per test, deleted after the test whatever
// its outcome.
import type { ServerOptions } from '../public-api.js';
import type { ForkOptions, HomebaseFork } from './client.js';
import { workerServer, type HomebaseTestServer } from './server.js';

export interface HomebaseFixtures {
  homebase: HomebaseTestServer;
  fork: HomebaseFork;
}

type Use<T> = (value: T) => Promise<void>;

/** `test.extend(homebaseFixtures({ seed: './fixtures.json' }))`: the server options apply to the
 *  worker's server, `fork` to every test's fork. */
export function homebaseFixtures(options: { server?: ServerOptions; fork?: ForkOptions } = {}) {
  return {
    // The first parameter must be an object pattern: both runners read it to find dependencies.
    homebase: [async ({}, use: Use<HomebaseTestServer>) => { // eslint-disable-line no-empty-pattern
      await use(await workerServer(options.server));
    }, { scope: 'worker' as const }] as [(deps: object, use: Use<HomebaseTestServer>) => Promise<void>, { scope: 'worker' }],
    fork: async ({ homebase }: { homebase: HomebaseTestServer }, use: Use<HomebaseFork>) => {
      const fork = await homebase.fork(options.fork);
      try {
        await use(fork);
      } finally {
        await fork.delete();
      }
    },
  };
}
