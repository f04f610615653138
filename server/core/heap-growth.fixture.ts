// Run by heap-growth.test.ts in a child process: applies a heap growing percentage (argv[2]; 0
// leaves V8's own), then keeps a live set while a ring of short-lived objects outlives the young
// generation (as a busy server's garbage does), and prints the largest heap V8 committed.
import { applyHeapGrowth } from './heap-growth.js';

applyHeapGrowth(Number(process.argv[2]));
const live: object[] = [];
for (let i = 0; i < 200_000; i++) live.push({ a: i, b: `x${i}`, c: [i] });
const ring: object[] = new Array(100_000);
let peak = 0;
for (let i = 0; i < 4_000_000; i++) {
  ring[i % ring.length] = { s: `y${i}`, arr: [i, i] };
  if (i % 50_000 === 0) peak = Math.max(peak, process.memoryUsage().heapTotal);
}
process.stdout.write(JSON.stringify({ peakMb: Math.round(peak / 1048576), live: live.length }));
