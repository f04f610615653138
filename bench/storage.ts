// Storage benchmark: upload and download throughput of a large file (200 MB by default) through
// the simple (multipart) upload and through tus, against a plain file copy on the same machine
// in the same run, with the server's resident memory sampled during each phase.
// Run: `npx tsx bench/storage.ts [--size-mb 200]`; the main benchmark calls benchStorage().
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { copyFile, mkdtemp, open, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Upload } from 'tus-js-client';

export interface StoragePhase {
  name: string;
  seconds: number;
  mbPerSecond: number;
  /** Highest server VmRSS sampled during the phase (MiB); undefined for local copies. */
  peakRssMiB?: number;
}

export interface StorageBenchResult {
  sizeMB: number;
  phases: StoragePhase[];
  /** Server VmRSS after start, before any upload (MiB). */
  idleRssMiB: number;
  /** Server VmHWM (peak resident set over its whole life) at the end (MiB). */
  lifetimePeakRssMiB: number;
}

const MiB = 1024 * 1024;
const here = fileURLToPath(import.meta.url);

/** Reads VmRSS and VmHWM (KiB) of a process from /proc. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Samples a process's RSS every 25 ms while `work` runs; returns the work's duration and the peak. */
async function measured<T>(pid: number | undefined, work: () => Promise<T>): Promise<{ seconds: number; peakKiB: number; value: T }> {
  let peak = 0;
  const sample = () => { if (pid) peak = Math.max(peak, memoryOf(pid).rss); };
  sample();
  const timer = setInterval(sample, 25);
  const start = process.hrtime.bigint();
  try {
    const value = await work();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    sample();
    return { seconds, peakKiB: peak, value };
  } finally {
    clearInterval(timer);
  }
}

async function makeFile(path: string, bytes: number) {
  const fh = await open(path, 'w');
  try {
    const block = randomBytes(4 * MiB);
    for (let written = 0; written < bytes; written += block.length) {
      await fh.write(block, 0, Math.min(block.length, bytes - written));
    }
  } finally {
    await fh.close();
  }
}

interface Child { proc: ChildProcess; url: string; consoleToken: string }

/** Starts the server as a child process (in memory: file bytes go to a temp folder) and waits for its JSON line. */
async function startChild(uploadLimit: number): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', here, '--child', String(uploadLimit)], {
    stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, HOMEBASE_LOG_LEVEL: 'warn' },
  });
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: proc.stdout! });
    rl.once('line', (l) => { rl.close(); resolve(l); });
    proc.once('exit', (code) => reject(new Error(`server exited early (${code})`)));
  });
  const info = JSON.parse(line) as { url: string; consoleToken: string };
  return { proc, ...info };
}

/** What `--child` runs: the server with a simple-upload limit large enough for the file. */
async function childMain(uploadLimit: number) {
  const { startServer } = await import('../server/index.js');
  const srv = await startServer({ port: 0, inMemory: true, uploadLimit, loginRateLimit: false });
  process.stdout.write(JSON.stringify({ url: srv.url, consoleToken: srv.consoleToken }) + '\n');
  const stop = () => { void srv.close().then(() => process.exit(0)); };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** POSTs the file as a multipart body with one `file` part, streamed from disk. */
function simpleUpload(api: string, token: string, path: string, size: number): Promise<{ _id: string; url: string }> {
  const boundary = `----hbBench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request(`${api}/storage/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + size + tail.length },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(text)) : reject(new Error(`upload: ${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    req.write(head);
    const file = createReadStream(path, { highWaterMark: MiB });
    file.on('error', reject);
    file.on('end', () => req.end(tail));
    file.pipe(req, { end: false });
  });
}

function tusUpload(api: string, token: string, path: string, chunkSize?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const up: Upload = new Upload(createReadStream(path), {
      endpoint: `${api}/storage/upload/tus`,
      headers: { Authorization: `Bearer ${token}` },
      metadata: { filename: 'bench.bin', filetype: 'application/octet-stream' },
      retryDelays: null,
      ...(chunkSize ? { chunkSize } : {}),
      onSuccess: () => resolve(up.url!.split('/').pop()!),
      onError: reject,
    });
    up.start();
  });
}

/** Uploads the file to a throw-away bare `node:http` server in this process that writes it to `target`. */
async function bareHttpUpload(path: string, size: number, target: string): Promise<void> {
  const server = http.createServer((req, res) => {
    pipeline(req, createWriteStream(target)).then(() => res.end('ok'), () => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  try {
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', headers: { 'content-length': size } }, (res) => { res.resume(); res.on('end', resolve); });
      req.on('error', reject);
      createReadStream(path, { highWaterMark: MiB }).pipe(req);
    });
  } finally {
    server.close();
  }
}

/** Downloads a file and discards it; resolves with the byte count. */
function download(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) { reject(new Error(`download: ${res.statusCode}`)); res.resume(); return; }
      let n = 0;
      res.on('data', (c: Buffer) => { n += c.length; });
      res.on('end', () => resolve(n));
      res.on('error', reject);
    }).on('error', reject);
  });
}

export async function benchStorage(opts: { sizeMB: number }): Promise<StorageBenchResult> {
  const size = Math.round(opts.sizeMB * 1e6);
  const dir = await mkdtemp(join(tmpdir(), 'homebase-bench-storage-'));
  const source = join(dir, 'source.bin');
  const phases: StoragePhase[] = [];
  const add = (name: string, seconds: number, peakKiB?: number) => {
    phases.push({ name, seconds, mbPerSecond: size / 1e6 / seconds, ...(peakKiB ? { peakRssMiB: peakKiB / 1024 } : {}) });
  };
  let child: Child | undefined;
  try {
    await makeFile(source, size);
    // Baselines: the kernel's copy, and a user-space stream copy (what a server must at least do).
    const kernel = await measured(undefined, () => copyFile(source, join(dir, 'copy1.bin')));
    add('plain copy (copyFile)', kernel.seconds);
    const streamed = await measured(undefined, () => pipeline(createReadStream(source, { highWaterMark: MiB }), createWriteStream(join(dir, 'copy2.bin'))));
    add('plain copy (stream)', streamed.seconds);
    await rm(join(dir, 'copy1.bin'));
    await rm(join(dir, 'copy2.bin'));
    // The ceiling for any HTTP upload here: a bare Node server piping the request body to a file.
    const bare = await measured(undefined, () => bareHttpUpload(source, size, join(dir, 'copy3.bin')));
    add('bare node:http upload', bare.seconds);
    await rm(join(dir, 'copy3.bin'));

    child = await startChild(size + 16 * MiB);
    const pid = child.proc.pid!;
    const minted = await fetch(`${child.url}/workspaces/demo/token`, { method: 'POST', headers: { authorization: `Bearer ${child.consoleToken}` } });
    const token = ((await minted.json()) as { token: string }).token;
    const api = `${child.url}/app/demo`;
    const idle = memoryOf(pid).rss;

    const simple = await measured(pid, () => simpleUpload(api, token, source, size));
    add('simple upload (multipart)', simple.seconds, simple.peakKiB);
    const simpleDl = await measured(pid, () => download(simple.value.url, token));
    if (simpleDl.value !== size) throw new Error(`downloaded ${simpleDl.value} bytes, expected ${size}`);
    add('download', simpleDl.seconds, simpleDl.peakKiB);

    const tusOne = await measured(pid, () => tusUpload(api, token, source));
    add('tus upload (1 request)', tusOne.seconds, tusOne.peakKiB);
    const tusChunked = await measured(pid, () => tusUpload(api, token, source, 8 * MiB));
    add('tus upload (8 MiB chunks)', tusChunked.seconds, tusChunked.peakKiB);
    const info = await (await fetch(`${api}/storage/${tusChunked.value}`, { headers: { authorization: `Bearer ${token}` } })).json() as { size: number; url: string };
    if (info.size !== size) throw new Error(`tus file has ${info.size} bytes, expected ${size}`);
    const tusDl = await measured(pid, () => download(info.url, token));
    add('download (tus file)', tusDl.seconds, tusDl.peakKiB);

    return { sizeMB: opts.sizeMB, phases, idleRssMiB: idle / 1024, lifetimePeakRssMiB: memoryOf(pid).hwm / 1024 };
  } finally {
    if (child) {
      child.proc.kill('SIGTERM');
      await new Promise((r) => { child!.proc.once('exit', r); setTimeout(r, 5000); });
    }
    await rm(dir, { recursive: true, force: true });
  }
}

export function storageTable(r: StorageBenchResult): string {
  const rows = r.phases.map((p) => `| ${p.name.padEnd(27)} | ${p.seconds.toFixed(2).padStart(7)} | ${p.mbPerSecond.toFixed(0).padStart(6)} | ${(p.peakRssMiB === undefined ? '-' : p.peakRssMiB.toFixed(0)).padStart(13)} |`);
  return [
    `Storage, ${r.sizeMB} MB file (server idle RSS ${r.idleRssMiB.toFixed(0)} MiB, lifetime peak ${r.lifetimePeakRssMiB.toFixed(0)} MiB)`,
    '| phase                       | seconds |   MB/s | peak RSS MiB |',
    '|-----------------------------|---------|--------|---------------|',
    ...rows,
  ].join('\n');
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return childMain(Number(args[1]));
  const i = args.indexOf('--size-mb');
  const sizeMB = i >= 0 ? Number(args[i + 1]) : 200;
  if (!(sizeMB > 0)) throw new Error('--size-mb must be a positive number');
  const result = await benchStorage({ sizeMB });
  process.stdout.write(storageTable(result) + '\n');
  if (args.includes('--json')) process.stdout.write(JSON.stringify(result) + '\n');
}

if (process.argv[1] && resolve(process.argv[1]) === here) {
  main().catch((err: unknown) => { process.stderr.write(`bench/storage: ${(err as Error)?.stack ?? String(err)}\n`); process.exit(1); });
}
