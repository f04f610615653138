// A test file's own throwaway PostgreSQL cluster and one database on it, opened before the file's
// tests and closed after them; nothing is started where PostgreSQL is not installed (the suites
// skip with pgBin).
import { afterAll, beforeAll } from 'vitest';
import { pgBin, startPgCluster, type PgCluster } from './pg-cluster.js';
import { PgDatabase } from '../storage/pg/database.js';

export interface PgSuite {
  /** The cluster (valid inside the tests). */
  readonly cluster: PgCluster;
  /** An open PgDatabase on a database named after the suite (valid inside the tests). */
  readonly db: PgDatabase;
}

export function usePgDatabase(name: string): PgSuite {
  let cluster: PgCluster | undefined;
  let db: PgDatabase | undefined;
  beforeAll(async () => {
    if (!pgBin) return;
    cluster = await startPgCluster();
    db = await PgDatabase.open(await cluster.createDatabase(name));
  }, 60_000);
  afterAll(async () => { await db?.close(); cluster?.stop(); });
  return {
    get cluster() { if (!cluster) throw new Error('no PostgreSQL cluster outside the tests'); return cluster; },
    get db() { if (!db) throw new Error('no PostgreSQL database outside the tests'); return db; },
  };
}
