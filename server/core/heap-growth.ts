// How far V8 lets the old generation grow past what the last full collection kept before it
// collects again. V8's own choice on a machine with a few GB of memory is up to 4× the live heap:
// a server holding 100,000 records (~100 MB live) then grows to ~400 MB of resident memory under a
// steady mix of reads and writes, although nothing leaks (what grows is garbage not yet collected:
// response texts, replaced records, the request log's old entries). Homebase asks for a fixed
// factor instead (`heapGrowingPercent`, default 40: collect once the old generation has grown by
// two fifths), which bounds the resident memory at about 1.4× the live heap plus the young generation,
// for one more full collection every few seconds under load (a few ms of the main thread each,
// most of the marking runs on other threads).
//
// The setting is V8's `--heap-growing-percent`, which V8 reads at every full collection, so it
// takes effect when set while the process runs. It is one setting per process: the CLI and
// `startServer()` both apply it when the server is created (a test runner that starts Homebase
// gets it too), the last server created in a process decides, and 0 leaves V8's own heuristic
// (and whatever `--heap-growing-percent` node was started with) alone.
import v8 from 'node:v8';

// 40 rather than 50: with writes faster, the lists mix of `bench/lists.ts` creates more records in
// its fixed time, and at 50 its peak reached 297-308 MB against the 300 MB bound (287-293 at 40);
// creates pay ~9 us more CPU each than at 50, still below the build before the engine seam.
export const DEFAULT_HEAP_GROWING_PERCENT = 40;

let applied: number | undefined;

/** Sets V8's heap growing factor to 1 + percent / 100 for this process (0: leaves it alone). */
export function applyHeapGrowth(percent: number): void {
  if (percent <= 0 || applied === percent) return;
  v8.setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
  applied = percent;
  // The bin's code cache is made under the settings the server's code was compiled with, and
  // puts this one back afterwards (bin/code-cache.js): it reads the value here.
  (globalThis as Record<symbol, unknown>)[Symbol.for('homebase.heapGrowingPercent')] = Math.round(percent);
}
