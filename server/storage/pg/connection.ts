// Connecting to PostgreSQL: the URL is checked before any connection is tried, the pool is
// opened and probed once, and every failure becomes one line that names the problem (never the
// password). While running, a query that fails because the server went away becomes 503 with
// the reason (toUnavailable); the pool reconnects by itself once the server is back.
import pg from 'pg';
import { StoreUnavailableError } from '../errors.js';
import { migrate, SchemaTooNewError } from './schema.js';
import { DatabaseError, redactUrl } from './database-error.js';

export { DatabaseError, redactUrl };

/** Refuses what is not a postgres:// URL with a host and a database, before connecting. */
export function checkDatabaseUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new DatabaseError(`--database: '${redactUrl(url)}' is not a URL; expected postgres://user:password@host:port/database`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new DatabaseError(`--database: unsupported scheme '${u.protocol.replace(/:$/, '')}'; only postgres:// (PostgreSQL 13 or newer) is supported`);
  }
  if (!u.hostname && !u.searchParams.get('host')) throw new DatabaseError(`--database: ${redactUrl(url)} names no host`);
  if (u.pathname.replace(/^\//, '') === '') throw new DatabaseError(`--database: ${redactUrl(url)} names no database (…/dbname)`);
}

/** One line naming why a connection or query failed. */
export function describePgError(err: unknown, url?: string): string {
  const e = err as { code?: string; message?: string; address?: string; port?: number; hostname?: string };
  const where = url ? ` at ${redactUrl(url)}` : '';
  switch (e?.code) {
    case 'ECONNREFUSED': return `PostgreSQL${where} refused the connection (is the server running and listening there?)`;
    case 'ENOTFOUND': case 'EAI_AGAIN': return `PostgreSQL host not found${where}`;
    case 'ETIMEDOUT': return `PostgreSQL${where} did not answer in time`;
    case 'ECONNRESET': case 'EPIPE': return `the connection to PostgreSQL${where} was lost`;
    case '28P01': case '28000': return `PostgreSQL${where} refused the credentials: ${e.message}`;
    case '3D000': return `${e.message}${where}`;
    case '57P01': case '57P02': case '57P03': return `PostgreSQL${where} is shutting down or starting up (${e.message})`;
    case '53300': return `PostgreSQL${where} has no free connection slots (${e.message})`;
    default: return `PostgreSQL${where}: ${e?.message ?? String(err)}`.replace(/\s+/g, ' ');
  }
}

/** Errors that mean the database cannot be reached now (not a bad query): answered 503. */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (!e) return false;
  if (typeof e.code === 'string' && (/^E[A-Z]+$/.test(e.code) || /^(08|57P|53)/.test(e.code))) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(e.message ?? '');
}

export function toUnavailable(err: unknown): unknown {
  return isConnectionError(err) ? new StoreUnavailableError(`The database is unavailable: ${describePgError(err)}`) : err;
}

export interface PgOptions { max?: number; connectTimeoutMs?: number }

/** A connection that ends under the process (the server shut down or restarted, the backend
 *  terminated by an administrator: 57P01, a network cut) must never crash it. The pool catches
 *  it for idle clients only; a client checked out (in a transaction, or holding an advisory lock
 *  while its section runs) emits 'error' with no listener unless it has its own, which Node turns
 *  into an uncaught exception. Every client gets one: the query under way fails (503), the
 *  broken client is dropped when released, and the next query opens a new connection. */
export function guardClients(pool: pg.Pool): void {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => { client.on('error', () => undefined); });
}

/** Run on every new connection before its first query: its named statements run on
 *  PostgreSQL's generic plan from their first execution. The driver names only its fixed
 *  statements by primary key (reads by id and writes of one document), whose plan does not
 *  depend on the values. Left to itself PostgreSQL plans a named statement again for its values
 *  at every execution whenever the generic plan looks costlier, which for `id = ANY($1)` it
 *  always does; that planning, mostly copying the definitions of the table's indexes (several
 *  expression indexes per indexed field), was half of PostgreSQL's CPU per GET by id. Statements
 *  planned for their values are not touched: unnamed ones, and list pages prepared with their
 *  values written in (no parameters). */
export async function onConnection(client: pg.ClientBase): Promise<void> {
  // And no JIT compilation: PostgreSQL compiles a plan costlier than jit_above_cost (a count or a
  // page sorting every match at a million records) again at every execution, prepared or not,
  // about 5 ms each time there, for statements whose work is reading rows, not evaluating
  // expressions. One round trip for both.
  await client.query('SET plan_cache_mode = force_generic_plan; SET jit = off').catch(() => undefined);
}

/** Opens a pool on `url`, checks it answers, and creates or upgrades the driver's schema. */
export async function openDatabase(url: string, options: PgOptions = {}): Promise<pg.Pool> {
  checkDatabaseUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    application_name: 'homebase',
    onConnect: onConnection,
  });
  guardClients(pool);
  try {
    const { rows } = await pool.query<{ v: string }>('SHOW server_version_num');
    if (Number(rows[0].v) < 130000) throw new DatabaseError(`PostgreSQL at ${redactUrl(url)} is version ${rows[0].v}; Homebase needs 13 or newer`);
    await migrate(pool);
  } catch (err) {
    await pool.end().catch(() => undefined);
    if (err instanceof DatabaseError) throw err;
    if (err instanceof SchemaTooNewError) throw new DatabaseError(err.message);
    throw new DatabaseError(describePgError(err, url));
  }
  return pool;
}
