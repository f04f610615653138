// Child-process plumbing for the targets: a free port, spawning, waiting for the first
// successful response (timed from the spawn), resident memory, and stopping.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import http from 'node:http';

export interface Target {
  name: string;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  child: ChildProcess;
  /** Milliseconds from spawn to the first successful probe response. */
  startMs: number;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface Probe { path: string; headers?: Record<string, string> }

/** One request; resolves to the status code (0 when the connection failed). */
export function probeOnce(origin: string, probe: Probe): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(`${origin}${probe.path}`, { headers: probe.headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.setTimeout(30_000, () => { req.destroy(); resolve(0); });
  });
}

/** Spawns a server and polls `probe` every few ms until it answers 2xx; the time is measured
 *  from just before the spawn. Rejects (and kills the child) on exit or timeout. */
export async function spawnTarget(name: string, command: string, args: string[], port: number, probe: Probe,
  options: SpawnOptions & { timeoutMs?: number } = {}): Promise<Target> {
  const origin = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let output = '';
  child.stdout?.on('data', (b: Buffer) => { if (output.length < 20_000) output += b.toString(); });
  child.stderr?.on('data', (b: Buffer) => { if (output.length < 20_000) output += b.toString(); });
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => { exited = true; resolve(); }));
  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exit;
    clearTimeout(timer);
  };
  const deadline = started + (options.timeoutMs ?? 120_000);
  for (;;) {
    if (exited) throw new Error(`${name} exited before answering:\n${output.slice(-2000)}`);
    const status = await probeOnce(origin, probe);
    if (status >= 200 && status < 300) break;
    if (status >= 400) { await stop(); throw new Error(`${name} answered ${status} to ${probe.path}:\n${output.slice(-2000)}`); }
    if (performance.now() > deadline) { await stop(); throw new Error(`${name} did not answer within ${options.timeoutMs ?? 120_000} ms`); }
    await new Promise((r) => setTimeout(r, 3));
  }
  return { name, origin, child, startMs: performance.now() - started, stop };
}

/** Resident set size of a process in MB (Linux /proc; undefined elsewhere). */
export function rssMb(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** A JSON request to a target (setup calls, not measured). */
export async function requestJson(method: string, url: string, body?: unknown, token?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = text ? JSON.parse(text) : undefined; } catch { /* not JSON */ }
  return { status: res.status, body: parsed };
}

/** Milliseconds the process's main thread (its event loop: the thread that answers requests)
 *  has run on a CPU so far (Linux: /proc/PID/schedstat, in ns); undefined elsewhere. On a busy
 *  machine the time a request costs the server, unlike its wall-clock time, does not grow with
 *  the other processes' load. */
export function mainThreadCpuMs(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}
