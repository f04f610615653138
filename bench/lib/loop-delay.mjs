// Preloaded into a server by bench/list-stall.ts (`node --import`): measures the event loop's
// delay inside the server (perf_hooks.monitorEventLoopDelay, 1 ms resolution). On SIGWINCH it
// prints `loop-delay-max <ms>` (the longest delay since the last signal) and starts again.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const h = monitorEventLoopDelay({ resolution: 1 });
h.enable();
process.on('SIGWINCH', () => {
  process.stdout.write(`loop-delay-max ${(h.max / 1e6).toFixed(1)}\n`);
  h.reset();
});
