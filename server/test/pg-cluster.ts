// A throwaway PostgreSQL cluster for the suites that run on the PostgreSQL driver: Debian's
// `initdb` and `pg_ctl` in a temporary folder, listening on 127.0.0.1 and a free port, stopped
// and deleted afterwards (and on exit, should a suite forget). PostgreSQL refuses to run as root,
// so when the tests run as root the cluster runs as the `postgres` user (`runuser`), in a folder
// that user owns. Each suite asks for its own database (`createDatabase`), so suites never see
// each other's tables.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  port: number;
  /** A new empty database on the cluster; resolves to its URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** Stops the server (connections are cut), keeping its data; `resume` starts it again on the same port. */
  pause(): void;
  resume(): void;
  stop(): void;
}

/** The folder holding `initdb` and `pg_ctl`: `HOMEBASE_PG_BIN`, else the newest
 *  /usr/lib/postgresql/N/bin (Debian, Ubuntu), else undefined. */
export function findPgBin(): string | undefined {
  const fromEnv = process.env.HOMEBASE_PG_BIN;
  if (fromEnv) return existsSync(join(fromEnv, 'initdb')) ? fromEnv : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(join(root, v, 'bin', 'initdb'))) return join(root, v, 'bin');
  return undefined;
}

/** Whether the PostgreSQL suites can run here. Under CI the binaries are installed by .ci/run,
 *  so their absence is a failure there, never a skip. */
export const pgBin = findPgBin();
export const PG_SKIP_REASON = pgBin ? undefined : 'PostgreSQL binaries not found (install Debian\'s `postgresql` or set HOMEBASE_PG_BIN): PostgreSQL suites skipped';
if (!pgBin && process.env.CI === 'true') throw new Error('CI=true but PostgreSQL binaries are missing: .ci/run installs `postgresql`');
if (PG_SKIP_REASON) console.warn(PG_SKIP_REASON);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
  });
}

/** `durable`: keep fsync and synchronous commits on (benchmarks); tests turn them off.
 *  `settings`: more server settings (`name=value`), as `postgres -c` takes them. */
export async function startPgCluster(options: { durable?: boolean; settings?: string[] } = {}): Promise<PgCluster> {
  if (!pgBin) throw new Error(PG_SKIP_REASON);
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'homebase-pg-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (bin: string, args: string[]) => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(pgBin, bin), ...args]] : [join(pgBin, bin), args];
    const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd: dir });
    if (r.status !== 0) throw new Error(`${bin} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  const port = await freePort();
  let started = false;
  let startArgs: string[] = [];
  const stop = () => {
    if (started) {
      started = false;
      try { run('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']); } catch { /* already gone */ }
    }
    rmSync(dir, { recursive: true, force: true });
    process.off('exit', stop);
  };
  process.on('exit', stop);
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
    // Durability settings off: a test cluster is thrown away, and fsync would only slow the suites.
    const fast = options.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
    const more = (options.settings ?? []).map((x) => ` -c ${x}`).join('');
    const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200${fast}${more}`;
    run('pg_ctl', ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'log'), '-o', opts]);
    started = true;
    startArgs = ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'log'), '-o', opts];
  } catch (err) {
    stop();
    throw err;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let n = 0;
  return {
    url, port, stop,
    pause() { run('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']); },
    resume() { run('pg_ctl', startArgs); },
    async createDatabase(prefix = 't') {
      const name = `${prefix}_${process.pid}_${++n}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try { await client.query(`CREATE DATABASE "${name}"`); } finally { await client.end(); }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
  };
}
