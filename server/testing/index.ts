// `homebase/testing`: helpers for test suites. A server per test worker and a fork of its
// default workspace per test, as `test.extend` fixtures (Vitest, Playwright) or as hooks (Jest,
// Vitest, Mocha), and a global setup that starts one server for a whole run. docs/testing.md
// shows each. Like the package's main entry, its type declarations need no @types package.
export { createFork, type ForkOptions, type HomebaseConnection, type HomebaseFork, type HomebaseResponse, type OutboxEmail, type RequestOptions } from './client.js';
export { TEST_ADMIN, globalSetup, globalTeardown, serverFromEnv, startTestServer, workerServer, type HomebaseTestServer } from './server.js';
export { homebaseFixtures, type HomebaseFixtures } from './fixtures.js';
export { useHomebase, type HomebaseHandle, type Hooks } from './hooks.js';
