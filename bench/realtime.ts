// Realtime fan-out benchmark: one chat message delivered to 100 and 1,000 subscribed sockets.
// Starts Homebase as a child process (in memory), opens the sockets, and measures
//  - latency: one message at a time, from the send to each socket's receipt (p50 / p99);
//  - throughput: a burst of messages, deliveries and messages per second until all arrived.
// Run: `npx tsx bench/realtime.ts [--sizes 100,1000] [--rounds 30] [--burst 50]`.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';

export interface RealtimeBenchOptions {
  /** Subscriber counts to measure (default 100 and 1,000). */
  sizes?: number[];
  /** Latency rounds per size (one message each, waited for). */
  rounds?: number;
  /** Messages sent back to back in the throughput phase. */
  burst?: number;
  /** An already running server (`http://host:port/api`) and its console token; else one is spawned. */
  url?: string;
  consoleToken?: string;
  log?: (line: string) => void;
}

export interface RealtimeBenchResult {
  subscribers: number;
  rounds: number;
  latencyMs: { p50: number; p99: number; max: number };
  burst: number;
  /** Messages published per second in the burst (each delivered to every subscriber). */
  messagesPerSec: number;
  /** Frames delivered per second in the burst (messages × subscribers). */
  deliveriesPerSec: number;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

async function startServer(): Promise<{ child: ChildProcess; url: string; consoleToken: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli.ts', 'serve', '--port', '0', '--in-memory', '--json'], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, HOMEBASE_LOG_LEVEL: 'warn', HOMEBASE_ADMIN_PASSWORD: 'bench-password-1' },
  });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await Promise.race([once(lines, 'line'), once(child, 'exit').then(() => { throw new Error('server exited before starting'); })])) as [string];
  const { url, consoleToken } = JSON.parse(line) as { url: string; consoleToken: string };
  return { child, url, consoleToken };
}

async function json(method: string, url: string, token: string, body?: unknown) {
  const res = await fetch(url, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (res.status === 204 ? undefined : res.json()) as Promise<any>;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Opens `n` sockets subscribed to `topic`; `onText` sees the text of every message event. */
async function openSubscribers(wsUrl: string, topic: string, n: number, onText: (text: string, at: number) => void): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  const batch = 100; // connect in batches: the listen backlog is finite
  for (let i = 0; i < n; i += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, n - i) }, async () => {
      const s = new WebSocket(wsUrl);
      sockets.push(s);
      await once(s, 'open');
      const subscribed = new Promise<void>((resolve, reject) => {
        s.once('message', (data) => {
          const f = JSON.parse(data.toString());
          if (f.type === 'subscribed') resolve(); else reject(new Error(JSON.stringify(f)));
        });
      });
      s.send(JSON.stringify({ type: 'subscribe', topic }));
      await subscribed;
      s.on('message', (data) => {
        const at = performance.now();
        const f = JSON.parse(data.toString());
        if (f.type === 'event' && f.event === 'message.created') onText(f.data.text, at);
      });
    }));
  }
  return sockets;
}

export async function benchRealtime(opts: RealtimeBenchOptions = {}): Promise<RealtimeBenchResult[]> {
  const log = opts.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const sizes = opts.sizes ?? [100, 1000];
  const server = opts.url ? undefined : await startServer();
  const url = opts.url ?? server!.url;
  const consoleToken = opts.consoleToken ?? server!.consoleToken;
  const results: RealtimeBenchResult[] = [];
  try {
    const { token } = await json('POST', `${url}/workspaces/demo/token`, consoleToken);
    const api = `${url}/app/demo`;
    const wsUrl = `${api.replace(/^http/, 'ws')}/realtime?token=${encodeURIComponent(token)}`;
    for (const n of sizes) {
      const channel = await json('POST', `${api}/chats/channels`, token, { name: `bench-${n}`, type: 'group' });
      const topic = `chat:${channel._id}`;
      // Per message text: when it was sent and how many sockets still wait for it.
      const pending = new Map<string, { sentAt: number; left: number; done: () => void }>();
      const latencies: number[] = [];
      const sockets = await openSubscribers(wsUrl, topic, n, (text, at) => {
        const p = pending.get(text);
        if (!p) return;
        latencies.push(at - p.sentAt);
        if (--p.left === 0) { pending.delete(text); p.done(); }
      });
      const sender = new WebSocket(wsUrl);
      await once(sender, 'open');
      const send = (text: string) => new Promise<void>((done) => {
        pending.set(text, { sentAt: performance.now(), left: n, done });
        sender.send(JSON.stringify({ type: 'message', channelId: channel._id, text }));
      });
      log(`realtime: ${n} sockets subscribed to ${topic}`);

      // Warm-up, then latency rounds one message at a time.
      for (let i = 0; i < 5; i++) await send(`warm-${n}-${i}`);
      latencies.length = 0;
      const rounds = opts.rounds ?? (n >= 1000 ? 30 : 100);
      for (let i = 0; i < rounds; i++) await send(`lat-${n}-${i}`);
      const sorted = latencies.slice().sort((a, b) => a - b);

      // Burst: every message sent at once; time until every socket has every message.
      const burst = opts.burst ?? (n >= 1000 ? 50 : 200);
      const started = performance.now();
      await Promise.all(Array.from({ length: burst }, (_, i) => send(`burst-${n}-${i}`)));
      const seconds = (performance.now() - started) / 1000;

      const result: RealtimeBenchResult = {
        subscribers: n, rounds,
        latencyMs: { p50: round2(percentile(sorted, 50)), p99: round2(percentile(sorted, 99)), max: round2(sorted[sorted.length - 1]) },
        burst,
        messagesPerSec: Math.round(burst / seconds),
        deliveriesPerSec: Math.round((burst * n) / seconds),
      };
      results.push(result);
      log(`realtime: ${JSON.stringify(result)}`);
      for (const s of [...sockets, sender]) s.terminate();
      await json('DELETE', `${api}/chats/channels/${channel._id}`, token);
    }
  } finally {
    if (server) {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
  }
  return results;
}

export function formatResults(results: RealtimeBenchResult[]): string {
  const rows = results.map((r) => `| ${r.subscribers} | ${r.latencyMs.p50} | ${r.latencyMs.p99} | ${r.latencyMs.max} | ${r.messagesPerSec} | ${r.deliveriesPerSec} |`);
  return ['| subscribers | p50 ms | p99 ms | max ms | messages/s | deliveries/s |', '|---:|---:|---:|---:|---:|---:|', ...rows].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : undefined; };
  const num = (name: string) => (arg(name) === undefined ? undefined : Number(arg(name)));
  benchRealtime({ sizes: arg('sizes')?.split(',').map(Number), rounds: num('rounds'), burst: num('burst') })
    .then((results) => { process.stdout.write(formatResults(results) + '\n'); })
    .catch((err: unknown) => { process.stderr.write(`bench realtime: ${(err as Error)?.stack ?? String(err)}\n`); process.exit(1); });
}
