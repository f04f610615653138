// Two servers on one PostgreSQL database sharing one files folder, for the suites that check what
// several processes share (a workspace's clock, faults, API keys). The second server finds the
// workspace, console token and admin the first made. Read `pair.a` / `pair.b` inside hooks and
// tests: they are set by the beforeAll this registers.
import { afterAll, beforeAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, testDatabase, type TestServer } from './harness.js';

export interface ServerPair { a: TestServer; b: TestServer }

export function useTwoServers(name: string): ServerPair {
  const pair = {} as ServerPair;
  let files: string | undefined;
  beforeAll(async () => {
    const database = await testDatabase();
    files = mkdtempSync(join(tmpdir(), `homebase-${name}-`));
    pair.a = await startTestServer({ database, files });
    pair.b = await startTestServer({ database, files });
  }, 60_000);
  afterAll(async () => {
    await pair.a?.close();
    await pair.b?.close();
    if (files) rmSync(files, { recursive: true, force: true });
  });
  return pair;
}
