// Benchmark options: sizes, durations and switches, from flags (`--sizes 10000,100000`) or the
// environment (`BENCH_SIZES=...`), so that the smoke test can run the same code tiny and fast.
import { parseArgs } from 'node:util';
import { OPS, type OpName } from './operations.js';

export interface BenchOptions {
  /** Data set sizes for the per-operation comparison (GET, list, create, update). */
  sizes: number[];
  /** The operations measured at each of `sizes` (all by default; `--ops get` to look at one). */
  ops: OpName[];
  /** Extra sizes for the create-throughput series (merged with `sizes`). */
  createSizes: number[];
  /** Size of the "start with N records" and RSS measurement. */
  startSize: number;
  /** Starts measured with `startSize` records (their median is reported). */
  startRuns: number;
  /** Records in the snapshot-restore measurement (0 = skip). */
  restoreSize: number;
  connections: number;
  /** Seconds of warm-up before each measured series. */
  warmup: number;
  /** Seconds of each measured run. */
  duration: number;
  /** Measured runs per figure; the table shows their median and min–max. */
  repeats: number;
  /** Run `npm run build` first (the benchmark measures the built server). */
  build: boolean;
  /** Run Homebase from its TypeScript sources through tsx instead of dist/ (smoke test only). */
  source: boolean;
  /** Optional suites, when their modules exist. */
  storage: boolean;
  realtime: boolean;
  /** The console in Chromium: first records page at 100,000 records, paging, JS size (on by default). */
  console: boolean;
  /** Test-suite figures: starts against `node -e 0`, fork of 10,000 records, a 200-test suite (on by default). */
  testing: boolean;
  /** GraphQL list of 50 beside the same REST list, on a server of its own (on by default). */
  graphql: boolean;
  /** Where the JSON and Markdown results go; undefined = don't write. */
  outDir?: string;
  /** Print progress lines to stderr. */
  verbose: boolean;
}

export const DEFAULTS: BenchOptions = {
  sizes: [10_000, 100_000],
  ops: OPS,
  createSizes: [1_000, 10_000, 100_000],
  startSize: 100_000,
  startRuns: 3,
  restoreSize: 10_000,
  connections: 10,
  warmup: 2,
  duration: 5,
  repeats: 3,
  build: true,
  source: false,
  storage: false,
  realtime: false,
  console: true,
  testing: true,
  graphql: true,
  outDir: 'bench/results',
  verbose: true,
};

const FLAGS = {
  sizes: { type: 'string' },
  ops: { type: 'string' },
  'create-sizes': { type: 'string' },
  'start-size': { type: 'string' },
  'start-runs': { type: 'string' },
  'restore-size': { type: 'string' },
  connections: { type: 'string' },
  warmup: { type: 'string' },
  duration: { type: 'string' },
  repeats: { type: 'string' },
  'no-build': { type: 'boolean' },
  source: { type: 'boolean' },
  storage: { type: 'boolean' },
  realtime: { type: 'boolean' },
  'no-console': { type: 'boolean' },
  'no-testing': { type: 'boolean' },
  'no-graphql': { type: 'boolean' },
  out: { type: 'string' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const USAGE = `Usage: npm run bench -- [--sizes 10000,100000] [--ops ${OPS.join(',')}] [--create-sizes 1000,10000,100000]
  [--start-size 100000] [--start-runs 3] [--restore-size 10000] [--connections 10] [--warmup 2] [--duration 5]
  [--repeats 3] [--no-build] [--source] [--storage] [--realtime] [--no-console] [--no-testing] [--no-graphql] [--out bench/results] [--quiet]
Every flag has an environment twin: BENCH_SIZES, BENCH_OPS, BENCH_CREATE_SIZES, BENCH_START_SIZE, BENCH_START_RUNS,
BENCH_RESTORE_SIZE, BENCH_CONNECTIONS, BENCH_WARMUP, BENCH_DURATION, BENCH_REPEATS,
BENCH_NO_BUILD=1, BENCH_SOURCE=1, BENCH_STORAGE=1, BENCH_REALTIME=1, BENCH_NO_CONSOLE=1, BENCH_NO_TESTING=1, BENCH_NO_GRAPHQL=1, BENCH_OUT.`;

function list(raw: string | undefined, name: string): number[] | undefined {
  if (raw === undefined) return undefined;
  const out = raw.split(',').filter(Boolean).map((s) => num(s, name)!);
  return out;
}

function ops(raw: string | undefined, name: string): OpName[] | undefined {
  if (raw === undefined) return undefined;
  const out = raw.split(',').filter(Boolean);
  const unknown = out.filter((o) => !(OPS as string[]).includes(o));
  if (unknown.length) throw new Error(`${name}: unknown operation ${unknown.join(', ')} (known: ${OPS.join(', ')})`);
  return OPS.filter((o) => out.includes(o)); // in the benchmark's own order (create last)
}

function num(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw.replace(/_/g, ''));
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got '${raw}'`);
  return n;
}

const flagOn = (v: string | undefined) => v !== undefined && v !== '' && v !== '0' && v !== 'false';

/** Options from the command line, then the environment, then the defaults. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): BenchOptions & { help: boolean } {
  const { values: v } = parseArgs({ args: argv, options: FLAGS, strict: true, allowPositionals: false });
  const pick = <T>(flag: T | undefined, fromEnv: T | undefined, def: T): T => flag ?? fromEnv ?? def;
  return {
    sizes: pick(list(v.sizes, 'sizes'), list(env.BENCH_SIZES, 'BENCH_SIZES'), DEFAULTS.sizes),
    ops: pick(ops(v.ops, 'ops'), ops(env.BENCH_OPS, 'BENCH_OPS'), DEFAULTS.ops),
    createSizes: pick(list(v['create-sizes'], 'create-sizes'), list(env.BENCH_CREATE_SIZES, 'BENCH_CREATE_SIZES'), DEFAULTS.createSizes),
    startSize: pick(num(v['start-size'], 'start-size'), num(env.BENCH_START_SIZE, 'BENCH_START_SIZE'), DEFAULTS.startSize),
    startRuns: Math.max(1, pick(num(v['start-runs'], 'start-runs'), num(env.BENCH_START_RUNS, 'BENCH_START_RUNS'), DEFAULTS.startRuns)),
    restoreSize: pick(num(v['restore-size'], 'restore-size'), num(env.BENCH_RESTORE_SIZE, 'BENCH_RESTORE_SIZE'), DEFAULTS.restoreSize),
    connections: pick(num(v.connections, 'connections'), num(env.BENCH_CONNECTIONS, 'BENCH_CONNECTIONS'), DEFAULTS.connections),
    warmup: pick(num(v.warmup, 'warmup'), num(env.BENCH_WARMUP, 'BENCH_WARMUP'), DEFAULTS.warmup),
    duration: pick(num(v.duration, 'duration'), num(env.BENCH_DURATION, 'BENCH_DURATION'), DEFAULTS.duration),
    repeats: Math.max(1, pick(num(v.repeats, 'repeats'), num(env.BENCH_REPEATS, 'BENCH_REPEATS'), DEFAULTS.repeats)),
    build: !(v['no-build'] ?? flagOn(env.BENCH_NO_BUILD)),
    source: v.source ?? flagOn(env.BENCH_SOURCE),
    storage: v.storage ?? flagOn(env.BENCH_STORAGE),
    realtime: v.realtime ?? flagOn(env.BENCH_REALTIME),
    console: !(v['no-console'] ?? flagOn(env.BENCH_NO_CONSOLE)),
    testing: !(v['no-testing'] ?? flagOn(env.BENCH_NO_TESTING)),
    graphql: !(v['no-graphql'] ?? flagOn(env.BENCH_NO_GRAPHQL)),
    outDir: v.out ?? env.BENCH_OUT ?? DEFAULTS.outDir,
    verbose: !(v.quiet ?? false),
    help: !!v.help,
  };
}
