// The load generator: autocannon (programmatic API) with N connections, a warm-up run that is
// thrown away, then `repeats` bounded runs. Only 2xx responses count as throughput; anything
// else is reported as errors so that a fast 401 can never pass for a fast answer.
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';

export interface Operation {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  /** Builds each request's path (random ids) and body. */
  next(): { path: string; body?: string };
  headers?: Record<string, string>;
}

export interface Figure {
  /** Median of the runs' 2xx responses per second. */
  median: number;
  min: number;
  max: number;
  runs: number[];
  /** Median latency (ms) of the median run. */
  p50: number;
  p99: number;
  /** Non-2xx responses and socket errors over all measured runs. */
  errors: number;
}

export interface LoadOptions { connections: number; warmup: number; duration: number; repeats: number }

interface RunResult { rps: number; p50: number; p99: number; errors: number }

async function runOnce(origin: string, op: Operation, connections: number, seconds: number): Promise<RunResult> {
  const headers = { ...(op.headers ?? {}), ...(op.method !== 'GET' ? { 'content-type': 'application/json' } : {}) };
  const result = await autocannon({
    url: origin,
    connections,
    duration: seconds,
    timeout: 30,
    requests: [{
      method: op.method,
      headers,
      setupRequest: (req) => {
        const { path, body } = op.next();
        return { ...req, path, ...(body !== undefined ? { body } : {}) } as typeof req;
      },
    }],
  });
  const ok = result['2xx'];
  const elapsed = result.duration > 0 ? result.duration : seconds;
  return {
    rps: ok / elapsed,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Warm-up, then `repeats` measured runs; the figure is their median with min–max. */
export async function measure(origin: string, op: Operation, o: LoadOptions): Promise<Figure> {
  return (await measureInterleaved([{ origin, op }], o))[0];
}

/** Several targets measured in rounds (each warmed up, then one run of each per round), so that
 *  a machine's changing load falls on every target alike and the ratios stay fair. */
export async function measureInterleaved(targets: Array<{ origin: string; op: Operation; pid?: number }>, o: LoadOptions): Promise<Figure[]> {
  if (o.warmup > 0) for (const t of targets) { await runOnce(t.origin, t.op, o.connections, o.warmup); await settle(t.pid); }
  const runs: RunResult[][] = targets.map(() => []);
  for (let i = 0; i < o.repeats; i++) {
    for (const [j, t] of targets.entries()) { runs[j].push(await runOnce(t.origin, t.op, o.connections, o.duration)); await settle(t.pid); }
  }
  return runs.map(figure);
}

/** CPU ticks (user + system) of a process, from /proc (undefined elsewhere). */
function cpuTicks(pid: number): number | undefined {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return undefined;
  }
}

/** Waits until a target has stopped using CPU: a slow server (json-server rewriting its file)
 *  still works through requests queued before the load generator stopped, and that must not
 *  fall on the next target's run. At most 20 s. */
async function settle(pid: number | undefined): Promise<void> {
  if (!pid) return;
  let last = cpuTicks(pid);
  for (let waited = 0; last !== undefined && waited < 20_000; waited += 150) {
    await new Promise((r) => setTimeout(r, 150));
    const now = cpuTicks(pid);
    if (now === last) return;
    last = now;
  }
}

function figure(runs: RunResult[]): Figure {
  const rps = runs.map((r) => r.rps);
  const mid = [...runs].sort((a, b) => a.rps - b.rps)[runs.length >> 1];
  return {
    median: median(rps),
    min: Math.min(...rps),
    max: Math.max(...rps),
    runs: rps,
    p50: mid.p50,
    p99: mid.p99,
    errors: runs.reduce((n, r) => n + r.errors, 0),
  };
}
