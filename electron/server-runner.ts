// What runs inside the server's utility process: start the same server the CLI starts, on the
// chosen data folder and port, tell the shell how it went, and close it gracefully when asked.
import net from 'node:net';
import { startServer, type StartedServer } from '../server/index.js';
import { DataFolderLockedError } from '../server/storage/lock.js';
import type { ChildMessage, ParentMessage, ServerFailure, ServerStartOptions } from './server-protocol.js';

/** The shell's end of the process: Electron's parentPort or, in tests, Node's IPC channel. */
export interface ParentChannel {
  send(message: ChildMessage): void;
  onMessage(listener: (message: ParentMessage) => void): void;
}

/** `port` when it is free on 127.0.0.1, else 0 (the system picks a free one). */
export function choosePort(port: number): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(0));
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve(port)));
  });
}

/** Turns a start error into what the shell's dialog needs. */
export function classifyStartError(err: unknown, data: string): ServerFailure {
  const code = (err as NodeJS.ErrnoException)?.code;
  const message = (err as Error)?.message ?? String(err);
  if (err instanceof DataFolderLockedError) return { kind: 'folder-locked', message, path: data };
  if (code === 'ENOSPC' || code === 'EDQUOT') return { kind: 'disk-full', message, path: data };
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOTDIR') return { kind: 'no-access', message, path: data };
  if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL') return { kind: 'port', message };
  return { kind: 'other', message, path: data };
}

export async function runServer(parent: ParentChannel, options: ServerStartOptions, exit: (code: number) => void): Promise<void> {
  let srv: StartedServer | undefined;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try { await srv?.close(); exit(0); } catch (err) {
      process.stderr.write(`homebase: closing failed: ${(err as Error)?.stack ?? String(err)}\n`);
      exit(1);
    }
  };
  parent.onMessage((message) => { if (message?.type === 'stop') void stop(); });

  const port = await choosePort(options.port);
  try {
    // A port taken between the probe and the listen: take a free one rather than fail.
    try {
      srv = await startServer({ data: options.data, port });
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code !== 'EADDRINUSE' || port === 0) throw err;
      srv = await startServer({ data: options.data, port: 0 });
    }
  } catch (err) {
    const failure = classifyStartError(err, options.data);
    process.stderr.write(`homebase: the server could not start (${failure.kind}): ${failure.message}\n`);
    parent.send({ type: 'failed', failure });
    exit(1);
    return;
  }
  process.stderr.write(`homebase: serving ${srv.consoleUrl} on data folder ${options.data}\n`);
  parent.send({
    type: 'ready',
    ready: {
      port: srv.port, url: srv.url, consoleUrl: srv.consoleUrl, consoleToken: srv.consoleToken,
      workspaces: srv.ctx.registry.list().map((w) => w._id), dataDir: options.data,
      preferredPortTaken: srv.port !== options.port, generatedAdmin: srv.generatedAdmin,
    },
  });
  if (stopping) void srv.close().then(() => exit(0));
}
