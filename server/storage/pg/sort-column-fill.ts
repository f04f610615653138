// The sort columns of one store table (sort-columns.ts) as this process knows them: which fields
// have ready ones (read from the table's catalogue, trusted for STATE_TTL_MS: another process may
// have readied more meanwhile, and a page without them is answered the same, only slower), and
// the making of a field's columns when a page first sorts on it and one of the page's records
// holds the field: added, then filled, in the background, one field at a time per process and
// per table across processes.
import { getPath } from '../doc-path.js';
import type { Doc, SortKey } from '../query.js';
import type { PgDatabase } from './database.js';
import { addSortColumnsSql, backfillSql, baseOfColumn, LOCK_TIMEOUT_MS, MAX_LOCK_TIMEOUT_MS, MAX_SORT_FIELDS, sortColumnBase, sortColumnOwner, SORT_COLUMNS_STATE_SQL, validateSql, type SortColumnRow } from './sort-columns.js';

/** How long the table's sort columns as last read are trusted. */
const STATE_TTL_MS = 10_000;
/** After a failed try (the table's lock not had in time, the database away), how long before a
 *  page asks again. */
const RETRY_MS = 10_000;
/** Passes over the rows before the fill gives up until a later page (see make). */
const FILL_PASSES = 3;

/** `present`: the fields with their own columns (sortColumnOwner) → whether they are ready;
 *  `bases`: the prefixes of every field's columns the table has, its own or not (each counts to
 *  MAX_SORT_FIELDS, and no other field's columns are made under one). */
interface State { ready: Set<string>; present: Map<string, boolean>; bases: Set<string>; at: number }

export class SortColumns {
  private state?: State;
  /** The state as last read (kept when `state` is let go to be read again). */
  private last?: State;
  private readonly filling = new Map<string, Promise<void>>();
  private readonly failedAt = new Map<string, number>();
  /** Failed tries per field since its last success (each doubles the wait for the lock). */
  private readonly failures = new Map<string, number>();
  /** The makings of this table's fields, one after the other (adding a field's columns waits for
   *  the table's lock, which another field's filling holds). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly db: PgDatabase, private readonly table: string) {}

  /** Forgets what was read of the table (a table made anew has none). */
  forget(): void { this.state = this.last = undefined; }

  /** For a sort whose first key no index orders (`ordered`: the fields with ordered indexes;
   *  createdAt and _id have their own), the fields with ready sort columns; undefined for a sort
   *  an index gives. The columns of the sort's other fields are asked for by `answered`, once the
   *  page is read. */
  async forSort(sort: SortKey[], ordered: ReadonlySet<string> | undefined): Promise<ReadonlySet<string> | undefined> {
    const first = sort[0]?.path;
    if (!first || first === 'createdAt' || first === '_id' || ordered?.has(first)) return undefined;
    return (await this.read()).ready;
  }

  /** After a page that forSort served (`docs`: its records, whole): asks for the columns of each
   *  sorted field without ready ones that one of the page's records holds (any value, null
   *  included). A field no record of the page holds gets none: every caller who may list chooses
   *  the sort, and each field's columns cost a fill of the whole table, lasting room and a little
   *  on every write, so a made-up name must not give a table columns. */
  answered(sort: SortKey[], docs: readonly Doc[]): void {
    const st = this.last;
    if (!st) return; // forgotten meanwhile (a table made anew): the next page asks
    for (const { path } of sort) {
      if (path === '_id' || st.ready.has(path)) continue;
      if (docs.some((d) => getPath(d, path) !== undefined)) this.request(path, st);
    }
  }

  /** Resolves once the columns asked for so far are made (or given up on): for tests. */
  async settled(): Promise<void> {
    while (this.filling.size) await Promise.all([...this.filling.values()]);
  }

  private async read(fresh = false): Promise<State> {
    if (!fresh && this.state && performance.now() - this.state.at < STATE_TTL_MS) return this.state;
    const rows = (await this.db.query<SortColumnRow>(SORT_COLUMNS_STATE_SQL, [this.table])).rows;
    const present = new Map<string, boolean>();
    for (const r of rows) if (sortColumnOwner(baseOfColumn(r.name), r.path)) present.set(r.path, r.ready);
    this.state = { ready: new Set([...present].filter(([, ready]) => ready).map(([p]) => p)), present, bases: new Set(rows.map((r) => baseOfColumn(r.name))), at: performance.now() };
    this.last = this.state;
    return this.state;
  }

  private request(path: string, st: State): void {
    if (this.filling.has(path)) return;
    if (!st.present.has(path) && (st.bases.size >= MAX_SORT_FIELDS || st.bases.has(sortColumnBase(path)))) return;
    const failed = this.failedAt.get(path);
    if (failed !== undefined && performance.now() - failed < RETRY_MS) return;
    const run = this.queue.then(() => this.make(path))
      .then(() => { this.failedAt.delete(path); this.failures.delete(path); },
        () => { this.failedAt.set(path, performance.now()); this.failures.set(path, (this.failures.get(path) ?? 0) + 1); })
      .finally(() => { this.filling.delete(path); this.state = undefined; });
    this.filling.set(path, run);
    this.queue = run;
  }

  /** Adds `path`'s columns (unless there), fills them, validates its constraint. */
  private async make(path: string): Promise<void> {
    const added = await this.db.tx(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`homebase-sort-columns:${this.table}`]);
      const rows = (await c.query<SortColumnRow>(SORT_COLUMNS_STATE_SQL, [this.table])).rows;
      const base = sortColumnBase(path);
      const taken = rows.find((r) => baseOfColumn(r.name) === base);
      // Its own columns already (to be filled if not ready), or its name taken by columns that
      // say they hold another path: those are not reused, and the field gets none.
      if (taken) return taken.path === path;
      if (rows.length >= MAX_SORT_FIELDS) return false;
      // Every column with a path is filled by the trigger (one without cannot be, and has none of
      // this code's making).
      const existing = rows.filter((r): r is SortColumnRow & { path: string } => r.path !== null).map((r) => ({ base: baseOfColumn(r.name), path: r.path }));
      const wait = Math.min(LOCK_TIMEOUT_MS * 2 ** (this.failures.get(path) ?? 0), MAX_LOCK_TIMEOUT_MS);
      for (const sql of addSortColumnsSql(this.table, path, existing, wait)) await c.query(sql);
      return true;
    });
    if (!added) return;
    await this.db.exclusive(`${this.table}:sort-columns`, path, async () => {
      const st = await this.read(true);
      if (st.present.get(path) !== false) return; // gone, or ready (another process filled it)
      // A pass over every row; another when validating finds a row still empty (one a writer
      // held locked through the pass, then rolled back).
      for (let pass = 1; ; pass++) {
        let last = '';
        for (;;) {
          const next = (await this.db.query<{ last: string | null }>(backfillSql(this.table, path), [last])).rows[0]?.last;
          if (next == null) break;
          last = next;
        }
        try {
          await this.db.query(validateSql(this.table, path));
          break;
        } catch (err) {
          if ((err as { code?: string }).code !== '23514' || pass >= FILL_PASSES) throw err;
        }
      }
      // The fill left a dead version of every row it filled: reclaimed now (and the table's
      // pages marked all-visible again, which the pages' scans rely on) rather than whenever
      // autovacuum comes. Blocks neither reads nor writes.
      await this.db.query(`VACUUM (ANALYZE) ${this.table}`);
    });
  }
}
