// PostgreSQL's share of a write group (write-group.ts): one transaction on one connection,
// opened by the group's first statement, committed or rolled back with the group. Every
// statement runs under a savepoint, so that a failing one (a unique violation a module catches
// and explains) is undone alone and the transaction goes on.
import type pg from 'pg';
import type { GroupParticipant } from '../write-group.js';

export class PgGroupTx implements GroupParticipant {
  private client: Promise<pg.PoolClient> | undefined;
  private tail: Promise<unknown> = Promise.resolve();

  /** Store tables the group's statements wrote to: `ended` hears of them once it is over. */
  readonly touched = new Set<string>();

  constructor(private readonly pool: pg.Pool, private readonly ended: (tables: Set<string>) => void = () => undefined) {}

  private connection(): Promise<pg.PoolClient> {
    return this.client ??= this.pool.connect().then(async (c) => { await c.query('BEGIN'); return c; });
  }

  /** One statement of the group (statements of a group run one after another). */
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[], name?: string): Promise<pg.QueryResult<R>> {
    const run = this.tail.then(async () => {
      const c = await this.connection();
      await c.query('SAVEPOINT hb_statement');
      try {
        const out = await (name ? c.query<R>({ name, text, values }) : c.query<R>(text, values));
        await c.query('RELEASE SAVEPOINT hb_statement');
        return out;
      } catch (err) {
        await c.query('ROLLBACK TO SAVEPOINT hb_statement');
        throw err;
      }
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** `fn` on the group's connection, as a nested transaction (a savepoint). */
  async nested<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const run = this.tail.then(async () => {
      const c = await this.connection();
      await c.query('SAVEPOINT hb_nested');
      try {
        const out = await fn(c);
        await c.query('RELEASE SAVEPOINT hb_nested');
        return out;
      } catch (err) {
        await c.query('ROLLBACK TO SAVEPOINT hb_nested');
        throw err;
      }
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  commit(): Promise<void> { return this.end('COMMIT'); }
  rollback(): Promise<void> { return this.end('ROLLBACK'); }

  private async end(statement: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    try {
      await this.tail;
      if (!this.client) return;
      const c = await this.client;
      try { await c.query(statement); } finally { c.release(); }
    } finally {
      this.ended(this.touched);
    }
  }
}
