// The npm package's entry (`import { startServer } from 'homebase'`): the public surface only.
// Its type declarations reference nothing but TypeScript's own types, so that a project type-
// checking with skipLibCheck off needs neither @types/express nor @types/node to use them
// (package.test.ts checks a consumer of the packed package). The server's internals stay
// reachable from code in this repository through index.ts.
import { startServer as startInternal } from './index.js';
import type { ServerOptions } from './core/config.js';

export type { ServerOptions };
export { ConfigError } from './core/config.js';
export { DumpFileError } from './core/dump-file-error.js';

/** A snapshot of the default workspace (`srv.snapshot(name)`). */
export interface SnapshotInfo { name: string; createdAt: string; records: number; collections: number; users: number; files: number }
export interface ResetOptions { keepSchema?: boolean }
export interface ResetResult { keepSchema: boolean; firstAdminId: string | null }

/** A running Homebase, as `startServer` returns it. */
export interface Homebase {
  /** `http://127.0.0.1:PORT/api`; the workspace API is `${url}/app/{app_id}`. */
  url: string;
  /** `http://127.0.0.1:PORT` (the console). */
  consoleUrl: string;
  port: number;
  /** Authorises the console API (`${url}/workspaces/...`). */
  consoleToken: string;
  workspaces: string[];
  /** Set on the first start of an empty data folder when no admin password was given. */
  generatedAdmin?: { workspace: string; email: string; password: string };
  /** Test-suite helpers on the default workspace. */
  snapshot(name: string, options?: { overwrite?: boolean }): Promise<SnapshotInfo>;
  restore(name: string): Promise<SnapshotInfo>;
  reset(options?: ResetOptions): Promise<ResetResult>;
  /** Stops accepting, finishes in-flight requests, flushes the stores. */
  close(): Promise<void>;
}

/** Starts Homebase: `await startServer({ port: 0, inMemory: true })`. */
export function startServer(options: ServerOptions = {}): Promise<Homebase> {
  return startInternal(options);
}
