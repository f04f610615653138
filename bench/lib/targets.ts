// The three targets of the benchmark, each started in its own process on 127.0.0.1: Homebase
// (built: node dist/server/bundle/cli.js, the bundle the package's bin runs), json-server 0.17.4 over the same records, and a bare
// Express 5 handler. Data sets are written straight to disk (see docs/performance.md).
import { mkdtemp, writeFile, readFile, rm, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, requestJson, spawnTarget, type Target } from './proc.js';
import { jsonServerDb, type Person } from './data.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
export const COLLECTION = 'people';
/** The same records with an index on `role` only: the list sorted by `age` has no index to walk. */
export const UNINDEXED_COLLECTION = 'people_roleonly';
const WORKSPACE = 'demo';
const ADMIN_PASSWORD = 'bench-admin-password-1';
const USER = { email: 'bench.user@example.com', password: 'bench-user-password-1', name: 'Bench User' };

export const bareExpressScript = join(ROOT, 'bench', 'lib', 'bare-express.ts');
export const homebaseCli = join(ROOT, 'dist', 'server', 'bundle', 'cli.js');
const homebaseSource = join(ROOT, 'server', 'cli.ts');

/** How bench/get-ab.ts varies a target's process: Node flags (`--cpu-prof`), a command to run
 *  node under (`taskset -c 1`), another build's cli.js, extra `serve` flags. */
export interface Launch { nodeArgs?: string[]; under?: string[]; cli?: string; serveArgs?: string[] }

/** The command and arguments that run node with `args` as `launch` says. */
function nodeCommand(args: string[], launch: Launch = {}): [string, string[]] {
  const node = [...(launch.nodeArgs ?? []), ...args];
  return launch.under?.length ? [launch.under[0], [...launch.under.slice(1), process.execPath, ...node]] : [process.execPath, node];
}

export async function startBareExpress(launch?: Launch): Promise<Target> {
  const port = await freePort();
  const [command, args] = nodeCommand(['--import', 'tsx', bareExpressScript, String(port)], launch);
  return spawnTarget('bare Express', command, args, port, { path: '/' }, { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production' } });
}

/** json-server over a db.json of the given people, in its own temporary folder. */
export async function startJsonServer(people: Person[]): Promise<Target & { dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'hb-bench-js-'));
  await writeFile(join(dir, 'db.json'), jsonServerDb(people));
  const port = await freePort();
  const bin = join(ROOT, 'node_modules', 'json-server', 'lib', 'cli', 'bin.js');
  const probePath = people.length ? `/${COLLECTION}/${people[0]._id}` : `/${COLLECTION}`;
  // --quiet: no per-request log line (gives json-server its best figures).
  const target = await spawnTarget('json-server', process.execPath, [bin, '--quiet', '--host', '127.0.0.1', '--port', String(port), 'db.json'], port,
    { path: probePath }, { cwd: dir, env: { ...process.env, NODE_ENV: 'production' } });
  return { ...target, dir, stop: async () => { await target.stop(); await rm(dir, { recursive: true, force: true }); } };
}

/** A Homebase data folder holding the `people` collection (indexes on role and age), a
 *  signed-in user's token, and N records written straight into the collection's file. */
export interface HomebaseData {
  dir: string;
  /** On PostgreSQL (`--database`), `dir` being its files folder; else `dir` is the data folder. */
  database?: string;
  /** Run from the TypeScript sources (tsx) instead of the build. */
  source: boolean;
  consoleToken: string;
  /** The token the benchmark sends: a signed-in user's when users + login exist, else the admin's. */
  token: string;
  tokenKind: 'user' | 'admin';
  /** Milliseconds from spawn to the first response (health), with the collection empty. */
  emptyStartMs: number;
  /** Milliseconds from spawn to the first page of records, with the collection empty. */
  emptyRecordsMs: number;
}

function homebaseArgs(source: boolean, port: number, dir: string, consoleToken: string, database?: string, launch: Launch = {}): string[] {
  const where = database ? ['--database', database, '--files', dir] : ['--data', dir];
  return [...(source ? ['--import', 'tsx', homebaseSource] : [launch.cli ?? homebaseCli]), 'serve', '--port', String(port), '--host', '127.0.0.1', ...where, '--console-token', consoleToken,
    '--admin-password', ADMIN_PASSWORD, '--token-ttl', String(7 * 24 * 3600), '--json', ...(launch.serveArgs ?? [])];
}

export const recordsPath = `/api/app/${WORKSPACE}/database/${COLLECTION}`;
export const unindexedRecordsPath = `/api/app/${WORKSPACE}/database/${UNINDEXED_COLLECTION}`;

export async function startHomebase(data: Pick<HomebaseData, 'dir' | 'consoleToken' | 'token' | 'source' | 'database'>, probe?: string, launch?: Launch): Promise<Target> {
  const port = await freePort();
  const [command, args] = nodeCommand(homebaseArgs(data.source, port, data.dir, data.consoleToken, data.database, launch), launch);
  return spawnTarget(data.database ? 'Homebase (PostgreSQL)' : 'Homebase', command, args, port,
    { path: probe ?? `${recordsPath}?limit=1`, headers: { authorization: `Bearer ${data.token}` } },
    { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production', HOMEBASE_LOG_LEVEL: 'warn' } });
}

/** First start of an empty folder (or database): creates the collection, its indexes and a user
 *  through the API, then stops. Needs the built server and the database routes. */
export async function prepareHomebase(source = false, database?: string): Promise<HomebaseData> {
  if (!source && !existsSync(homebaseCli)) throw new Error(`${homebaseCli} is missing: run npm run build`);
  const dir = await mkdtemp(join(tmpdir(), 'hb-bench-hb-'));
  const consoleToken = `hb_console_bench_${Math.random().toString(36).slice(2)}`;
  const first = await startHomebase({ dir, consoleToken, token: '', source, database }, '/api/health');
  try {
    const api = `${first.origin}/api`;
    const minted = await requestJson('POST', `${api}/workspaces/${WORKSPACE}/token`, {}, consoleToken);
    if (minted.status !== 200 && minted.status !== 201) throw new Error(`admin token: ${minted.status} ${JSON.stringify(minted.body)}`);
    const admin = minted.body.token as string;
    const app = `${api}/app/${WORKSPACE}`;
    const made = await requestJson('POST', `${app}/database`, { _id: COLLECTION, name: COLLECTION, setting: { read: 'private', write: 'private', update: 'private' } }, admin);
    if (made.status !== 201 && made.status !== 200) throw new Error(`Homebase has no records API yet (POST /database → ${made.status})`);
    const plain = await requestJson('POST', `${app}/database`, { _id: UNINDEXED_COLLECTION, name: UNINDEXED_COLLECTION, setting: { read: 'private', write: 'private', update: 'private' } }, admin);
    if (plain.status !== 201 && plain.status !== 200) throw new Error(`POST /database (${UNINDEXED_COLLECTION}) → ${plain.status}`);
    for (const [collection, field] of [[COLLECTION, 'role'], [COLLECTION, 'age'], [UNINDEXED_COLLECTION, 'role']]) {
      const ix = await requestJson('POST', `${app}/database/${collection}/indexes`, { fields: [field], unique: false }, admin);
      if (ix.status !== 201 && ix.status !== 200) throw new Error(`index on ${collection}.${field}: ${ix.status} ${JSON.stringify(ix.body)}`);
    }
    let token = admin;
    let tokenKind: HomebaseData['tokenKind'] = 'admin';
    const user = await requestJson('POST', `${app}/users`, { ...USER, role: 'user' }, admin);
    if (user.status === 201 || user.status === 200) {
      const login = await requestJson('POST', `${app}/auth/login`, { email: USER.email, password: USER.password });
      if ((login.status === 200 || login.status === 201) && typeof login.body?.token === 'string') { token = login.body.token; tokenKind = 'user'; }
    }
    await first.stop();
    const emptyHealth = await startHomebase({ dir, consoleToken, token, source, database }, '/api/health');
    await emptyHealth.stop();
    const empty = await startHomebase({ dir, consoleToken, token, source, database });
    await empty.stop();
    return { dir, database, source, consoleToken, token, tokenKind, emptyStartMs: emptyHealth.startMs, emptyRecordsMs: empty.startMs };
  } catch (err) {
    await first.stop();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Writes the people into the (stopped) server's collection files (both collections), one nedb
 *  document per line, keeping the index definitions the API wrote there. */
export async function writeRecords(data: HomebaseData, people: Person[]): Promise<void> {
  await mkdir(join(data.dir, 'workspaces', WORKSPACE, 'collections'), { recursive: true });
  const lines = people.map((p) => JSON.stringify(p));
  for (const collection of [COLLECTION, UNINDEXED_COLLECTION]) {
    const file = join(data.dir, 'workspaces', WORKSPACE, 'collections', `${collection}.db`);
    const existing = existsSync(file) ? await readFile(file, 'utf8') : '';
    const indexLines = existing.split('\n').filter((l) => l.includes('"$$indexCreated"'));
    await writeFile(file, lines.concat(indexLines).join('\n') + '\n');
  }
}

export async function removeHomebaseData(data: HomebaseData): Promise<void> {
  await rm(data.dir, { recursive: true, force: true });
}
