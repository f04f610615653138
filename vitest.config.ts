import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'renderer/**/*.test.ts', 'bench/**/*.test.ts', 'electron/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: { HOMEBASE_LOG_LEVEL: 'silent' },
    // CI (.ci/run) asks for a JSON report beside the usual output for its closing summary line.
    ...(process.env.VITEST_JSON_OUTPUT_FILE
      ? { reporters: ['default', 'json'], outputFile: { json: process.env.VITEST_JSON_OUTPUT_FILE } }
      : {}),
  },
});
