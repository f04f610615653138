// Hosts the server in a separate process (Electron's utilityProcess): a slow request or a long
// import never blocks the menus and windows of the main process, and a crash is reported and
// the server restarted instead of taking the app down. Its output goes to the log file.
import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import type { ChildMessage, ParentMessage, ServerFailure, ServerReady, ServerStartOptions } from './server-protocol.js';

/** The part of Electron's UtilityProcess the host uses (a Node fork adapts to it in tests). */
export interface ServerChild {
  postMessage(message: ParentMessage): void;
  on(event: 'message', listener: (message: ChildMessage) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  kill(): boolean;
  stdout: Readable | null;
  stderr: Readable | null;
}
export type ForkServer = (entry: string, args: string[]) => ServerChild;

export class ServerStartError extends Error {
  constructor(readonly failure: ServerFailure) { super(failure.message); }
}

/** How long Quit waits for in-flight requests and the stores' flush before killing the process. */
export const STOP_TIMEOUT_MS = 15_000;

export interface ServerHostEvents { crashed: [ServerFailure] }

export class ServerHost extends EventEmitter<ServerHostEvents> {
  private child: ServerChild | undefined;
  private current: ServerReady | undefined;
  private exited: Promise<number> | undefined;

  constructor(private readonly fork: ForkServer, private readonly entry: string,
    private readonly log: (line: string) => void, private readonly logFile: string) { super(); }

  get info(): ServerReady | undefined { return this.current; }
  get running(): boolean { return !!this.child; }

  /** Starts the server; rejects with a ServerStartError saying why it could not. */
  async start(options: ServerStartOptions): Promise<ServerReady> {
    if (this.child) await this.stop();
    const child = this.fork(this.entry, [JSON.stringify(options)]);
    this.child = child;
    const tail: string[] = [];
    const pipe = (stream: Readable | null) => {
      let rest = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) { this.log(`[server] ${line}`); tail.push(line); if (tail.length > 20) tail.shift(); }
      });
    };
    pipe(child.stdout);
    pipe(child.stderr);

    let failed = false;
    let settle: { resolve: (r: ServerReady) => void; reject: (e: Error) => void } | undefined;
    const started = new Promise<ServerReady>((resolve, reject) => { settle = { resolve, reject }; });
    child.on('message', (message) => {
      if (message?.type === 'ready') { this.current = message.ready; settle?.resolve(message.ready); settle = undefined; }
      if (message?.type === 'failed') { failed = true; settle?.reject(new ServerStartError(message.failure)); settle = undefined; }
    });
    this.exited = new Promise<number>((resolve) => child.on('exit', (code) => {
      const expected = this.child !== child || failed; // stop() forgot it first, or it said why
      if (this.child === child) { this.child = undefined; this.current = undefined; }
      this.log(`server process exited with code ${code}`);
      const failure = crashFailure(code, tail, this.logFile);
      if (settle) { settle.reject(new ServerStartError(failure)); settle = undefined; }
      else if (!expected) this.emit('crashed', failure);
      resolve(code);
    }));
    return started;
  }

  /** Graceful stop: in-flight requests finish, stores flush, the data folder's lock is released. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    this.current = undefined;
    const exited = this.exited!;
    try { child.postMessage({ type: 'stop' }); } catch { /* already gone */ }
    const timer = setTimeout(() => { this.log('server did not stop in time; killing it'); child.kill(); }, STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
}

/** An unexpected exit; a full disk is told apart by what the server last wrote. */
export function crashFailure(code: number, tail: string[], logFile: string): ServerFailure {
  const text = tail.join('\n');
  if (/ENOSPC|EDQUOT|no space left/i.test(text)) {
    return { kind: 'disk-full', message: 'The disk holding the data folder is full.', exitCode: code, path: logFile };
  }
  return { kind: 'crash', message: `The server stopped unexpectedly (exit code ${code}).`, exitCode: code, path: logFile };
}
