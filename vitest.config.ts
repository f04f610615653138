import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'renderer/src/**/*.test.ts', 'bench/**/*.test.ts', 'electron/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: { HOMEBASE_LOG_LEVEL: 'silent' },
  },
});
