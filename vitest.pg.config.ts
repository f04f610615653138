// The API suites again, with every test server on PostgreSQL (server/test/harness.ts,
// HOMEBASE_TEST_DRIVER=postgres): `npm run test:pg`, part of `npm test`. Suites that need a data
// folder (crash, restart, file layout) start embedded servers as before.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export const PG_SUITES = [
  'server/modules/database/**/*.test.ts',
  'server/modules/auth/**/*.test.ts',
  'server/modules/users/**/*.test.ts',
  'server/modules/storage/**/*.test.ts',
  'server/modules/chats/**/*.test.ts',
  'server/modules/realtime/**/*.test.ts',
  'server/modules/webhooks/**/*.test.ts',
  'server/modules/scenarios/**/*.test.ts',
  'server/modules/workspaces/**/*.test.ts',
  'server/modules/credentials/**/*.test.ts',
  'server/v2/**/*.test.ts',
  'server/modules/clock/**/*.test.ts',
  'server/modules/faults/**/*.test.ts',
  'server/test/three-processes.test.ts',
  'server/test/outbox.test.ts',
  'server/modules/api-keys/**/*.test.ts',
  'server/modules/oauth/**/*.test.ts',
];

// CI's JSON report of this run goes beside the embedded run's (vitest.json → vitest.pg.json), so
// .ci/run's closing line counts both runs instead of the second overwriting the first.
const jsonReport = process.env.VITEST_JSON_OUTPUT_FILE?.replace(/\.json$/, '.pg.json');

export default defineConfig({
  test: {
    ...base.test,
    ...(jsonReport ? { reporters: ['default', 'json'], outputFile: { json: jsonReport } } : {}),
    include: PG_SUITES,
    globalSetup: ['server/test/pg-global-setup.ts'],
    env: { ...base.test?.env, HOMEBASE_TEST_DRIVER: 'postgres' },
  },
});
