// Entry of the server's utility process (ServerHost forks it; in tests, Node's fork does). Its
// one argument is the ServerStartOptions as JSON. Logs go to stderr, which the shell writes to
// the log file; the console token and a generated password travel only over the IPC channel.
import { runServer, type ParentChannel } from './server-runner.js';
import type { ParentMessage, ServerStartOptions } from './server-protocol.js';

interface ParentPort { postMessage(message: unknown): void; on(event: 'message', listener: (e: { data: unknown }) => void): void }
const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;

const channel: ParentChannel = parentPort
  ? { send: (m) => parentPort.postMessage(m), onMessage: (l) => parentPort.on('message', (e) => l(e.data as ParentMessage)) }
  : {
    send: (m) => process.send?.(m),
    onMessage: (l) => {
      process.on('message', (m) => l(m as ParentMessage));
      // The shell is gone (Node's fork in tests): close as on a stop.
      process.on('disconnect', () => l({ type: 'stop' }));
    },
  };

const options = JSON.parse(process.argv[process.argv.length - 1]) as ServerStartOptions;
void runServer(channel, options, (code) => {
  process.exitCode = code;
  // Let the last IPC message leave before the process ends.
  setTimeout(() => process.exit(code), 50).unref();
});
