// Messages between the shell and the server it hosts in a utility process (server-process.ts).
export interface ServerStartOptions {
  /** The data folder (absolute). */
  data: string;
  /** The port wanted (4700); a free one is used when it is taken. */
  port: number;
}

/** Why the server could not start or stopped; `failures.ts` turns it into a dialog. */
export type FailureKind = 'folder-locked' | 'disk-full' | 'no-access' | 'port' | 'crash' | 'other';
export interface ServerFailure {
  kind: FailureKind;
  message: string;
  /** The data folder, or the log file for a crash. */
  path?: string;
  exitCode?: number;
}

export interface ServerReady {
  port: number;
  /** `http://127.0.0.1:PORT/api` */
  url: string;
  /** `http://127.0.0.1:PORT` */
  consoleUrl: string;
  consoleToken: string;
  workspaces: string[];
  dataDir: string;
  /** The wanted port was in use, so another one was taken. */
  preferredPortTaken: boolean;
  /** Set on the first start of an empty data folder (shown once, never logged). */
  generatedAdmin?: { workspace: string; email: string; password: string };
}

export type ChildMessage = { type: 'ready'; ready: ServerReady } | { type: 'failed'; failure: ServerFailure };
export type ParentMessage = { type: 'stop' };
