// Global setup of the PostgreSQL run of the API suites (vitest.pg.config.ts): one throwaway
// cluster for the whole run (each server still gets its own database), stopped at the end.
import { startPgCluster, type PgCluster } from './pg-cluster.js';

let cluster: PgCluster | undefined;

export async function setup(): Promise<void> {
  cluster = await startPgCluster();
  process.env.HOMEBASE_TEST_PG_URL = cluster.url;
}

export async function teardown(): Promise<void> {
  cluster?.stop();
}
