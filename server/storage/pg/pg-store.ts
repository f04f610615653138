// The PostgreSQL driver's stores. One table per store (a collection's records, a workspace's
// users, sessions, ...): `(id text PRIMARY KEY, doc jsonb)`, named hb_s_<n> and listed in
// homebase_stores (workspace, name) → table. Why a table each rather than one table keyed by
// collection: see docs/scaling.md (per-collection statistics and plans, DROP / TRUNCATE as one
// cheap transactional step, unique indexes without a partial predicate per collection).
import type pg from 'pg';
import { UnstorableValueError } from '../errors.js';
import { checkObject } from '../field-names.js';
import { DEFAULT_SORT, project, type Condition, type Doc, type QueryResult, type StoreQuery } from '../query.js';
import { finishWindow, windowKeys } from '../page-window.js';
import { activeWriteGroup } from '../write-group.js';
import type { IndexSpec, PatchOptions, UpdateOptions, WriteOptions } from '../store.js';
import type { Store } from '../store.js';
import type { PgDatabase } from './database.js';
import { CountCache } from './count-cache.js';
import { inlineValues, MAX_PLAN_TEXT } from './page-plans.js';
import { listSql, pathExpr, whereSql, Params, type PageSql } from './sql-query.js';
import { SortColumns } from './sort-column-fill.js';
import { createIndex, dropIndex, indexKeyOf } from './store-tables.js';
import { outboxHead, outboxText, withOutbox } from './outbox.js';

function checkKeys(doc: unknown): void {
  try {
    checkObject(doc);
  } catch (err) {
    throw new UnstorableValueError('', 'format', (err as Error).message);
  }
}

const toJson = (doc: Doc) => JSON.stringify(doc);
/** Lost races of an `update` before it goes on inside the document's exclusive section. */
const UPDATE_TRIES_UNLOCKED = 3;
/** How long a store trusts its list of ordered indexes (PgDocStore.orderedFields). */
const ORDERED_TTL_MS = 10_000;

export class PgDocStore implements Store {
  constructor(private readonly db: PgDatabase, readonly table: string) {
    this.sortColumns = new SortColumns(db, table);
  }

  /** The fields with sort columns (sort-columns.ts): which are ready, and their filling. */
  readonly sortColumns: SortColumns;

  /** Fields with ordered indexes (a user index on the field alone), as last read, and when. */
  private ordered?: { fields: Set<string>; at: number };

  /** The fields whose one-key sorts read only the page from their ordered indexes. Read again
   *  after this process changes the indexes, and at least every ORDERED_TTL_MS (another process
   *  may have changed them: until then a page is read the slower way, or, for an index just
   *  dropped elsewhere, with a plan that finds no index to read; both answer the same). */
  private async orderedFields(): Promise<Set<string>> {
    if (this.ordered && performance.now() - this.ordered.at < ORDERED_TTL_MS) return this.ordered.fields;
    const rows = (await this.db.query<{ field_name: string }>(
      `SELECT field_name FROM homebase_indexes WHERE table_name = $1 AND strpos(field_name, ',') = 0`, [this.table])).rows;
    this.ordered = { fields: new Set(rows.map((r) => r.field_name)), at: performance.now() };
    return this.ordered.fields;
  }

  async get(id: string): Promise<Doc | undefined> {
    // No stored id holds NUL (PostgreSQL text cannot): such a read finds nothing, as on the
    // embedded driver, instead of PostgreSQL's encoding error.
    if (typeof id !== 'string' || id.includes('\u0000')) return undefined;
    // Inside a write group: on the group's transaction; otherwise with the other reads of this
    // turn of the event loop, in one statement.
    if (activeWriteGroup()) return (await this.db.query<{ doc: Doc }>(`SELECT doc FROM ${this.table} WHERE id = $1`, [id], undefined, `${this.table}_get`)).rows[0]?.doc;
    return this.db.reads.read(this.table, id);
  }

  async getWith(id: string, others: Array<[Store, string]>): Promise<Array<Doc | undefined>> {
    const reads: Array<[Store, string]> = [[this, id], ...others];
    // Stores of another database (or driver) are read on their own.
    if (reads.some(([s, i]) => !(s instanceof PgDocStore) || s.db !== this.db || typeof i !== 'string')) {
      return Promise.all(reads.map(([s, i]) => s.get(i)));
    }
    if (!activeWriteGroup()) return Promise.all(reads.map(([s, i]) => (s as PgDocStore).get(i)));
    const columns = reads.map(([s], k) => `(SELECT doc FROM ${(s as PgDocStore).table} WHERE id = $${k + 1}) AS d${k}`);
    const row = (await this.db.query<Record<string, Doc | null>>(`SELECT ${columns.join(', ')}`, reads.map(([, i]) => i))).rows[0];
    return reads.map((_, k) => row[`d${k}`] ?? undefined);
  }

  async find(q: StoreQuery): Promise<QueryResult> {
    const ordered = q.sort.length || q.window ? await this.orderedFields() : undefined;
    // Sort columns: a page sorted on fields no index orders sorts by them once they are ready,
    // and asks for those of its fields that its records hold (made in the background). Not
    // inside a write group: its transaction must not wait on the table's lock, and the answer is
    // the same without.
    const columns = q.sort.length && !activeWriteGroup() ? await this.sortColumns.forSort(q.sort, ordered) : undefined;
    const ask = columns ? (docs: Doc[]) => this.sortColumns.answered(q.sort, docs) : undefined;
    try {
      return await this.findWith(q, ordered, columns, ask);
    } catch (err) {
      // A table made anew since (a snapshot restored by rebuilding it, in this or another
      // process) has no sort columns yet: read again without them.
      if (!columns?.size || (err as { code?: string }).code !== '42703') throw err;
      this.sortColumns.forget();
      return this.findWith(q, ordered, undefined);
    }
  }

  /** `answered`: told the page's records, whole (before projection). */
  private async findWith(q: StoreQuery, ordered: ReadonlySet<string> | undefined, columns: ReadonlySet<string> | undefined,
    answered?: (docs: Doc[]) => void): Promise<QueryResult> {
    const { page, count } = listSql(this.table, q, ordered, columns);
    // Inside a write group a list sees the group's own writes, which nobody else may see yet.
    const counts = activeWriteGroup() ? undefined : this.db.counts;
    const key = `${count.text}\u0000${JSON.stringify(count.values)}`;
    let total = q.skipTotal ? -1 : counts?.get(this.table, key);
    if (!page) return { data: [], total: total ?? await this.countOf(count, key, counts) };
    if (total !== undefined && total >= 0 && total <= q.offset && !q.window) return { data: [], total };
    const stamp = counts?.stamp(this.table) ?? '';
    let rows = await this.pageRows(page);
    // A page read from sort columns with its equality tests put off: a row that fails one (a
    // digest collision) means the page is read again with the tests on every match.
    if (page.exact && rows.some((r) => r.ok === false)) rows = await this.pageRows(page.exact);
    let data = rows.map((r) => r.doc);
    answered?.(data);
    if (total === undefined) {
      // A page that ends the list says how long the list is, from the same reading: no count.
      const ends = q.window
        ? !q.window.seek && !q.window.backward && q.offset === 0 && data.length <= q.limit
        : data.length < q.limit && (data.length > 0 || q.offset === 0);
      if (ends) {
        total = q.offset + data.length;
        counts?.set(this.table, key, total, stamp);
      } else {
        total = await this.countOf(count, key, counts);
      }
    }
    if (q.window) data = finishWindow(q, windowKeys(q.sort.length ? q.sort : DEFAULT_SORT, q.window.backward), data);
    return { data: q.fields ? data.map((d) => project(d, q.fields!)) : data, total };
  }

  /** The rows of a page: from the connection's prepared plan of it (page-plans.ts), but inside
   *  a write group (its transaction), for values a statement's text cannot carry, or for a page
   *  too long to keep (MAX_PLAN_TEXT). */
  private async pageRows(page: Omit<PageSql, 'exact'>): Promise<Array<{ doc: Doc; ok?: boolean }>> {
    const text = activeWriteGroup() ? undefined : inlineValues(page.text, page.values);
    if (text === undefined || text.length > MAX_PLAN_TEXT) return (await this.db.query<{ doc: Doc; ok?: boolean }>(page.text, page.values)).rows;
    return this.db.pageRows<{ doc: Doc; ok?: boolean }>(text);
  }

  /** Counts a list's matches, keeping the figure for the next list with the same filter. */
  private async countOf(count: { text: string; values: unknown[] }, key: string, counts: CountCache | undefined): Promise<number> {
    const stamp = counts?.stamp(this.table);
    const n = (await this.db.query<{ n: number }>(count.text, count.values)).rows[0].n;
    if (stamp !== undefined) counts!.set(this.table, key, n, stamp);
    return n;
  }

  /** Runs a write statement (or several), telling the database handle the table changed when
   *  it is over, whatever its outcome. */
  private async writing<T>(fn: () => Promise<T>): Promise<T> {
    try { return await fn(); } finally { this.db.wrote(this.table); }
  }

  async findBy(path: string, value: unknown): Promise<Doc[]> {
    const p = new Params();
    const where = whereSql([{ path, op: '$eq', values: [value] }], p);
    return (await this.db.query<{ doc: Doc }>(`SELECT doc FROM ${this.table} ${where} ORDER BY id`, p.values)).rows.map((r) => r.doc);
  }

  async all(): Promise<Doc[]> {
    // With the other reads of this turn (read-batch.ts), but inside a write group.
    if (!activeWriteGroup()) return this.db.reads.scan(this.table);
    return (await this.db.query<{ doc: Doc }>(`SELECT doc FROM ${this.table} ORDER BY id`)).rows.map((r) => r.doc);
  }

  async count(): Promise<number> {
    return (await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table}`)).rows[0].n;
  }

  async insert(doc: Doc, options?: WriteOptions): Promise<Doc> {
    checkKeys(doc);
    const json = toJson(doc);
    const row = (await this.writeWithEvent(`INSERT INTO ${this.table} (id, doc) VALUES ($1, $2::jsonb) RETURNING doc`, [doc._id, json], 'ins', options?.event, sameData(options?.event, doc, json))).rows[0];
    return row.doc;
  }

  async insertNew(doc: Doc, options?: WriteOptions): Promise<Doc | undefined> {
    checkKeys(doc);
    const json = toJson(doc);
    return (await this.writeWithEvent<{ doc: Doc }>(`INSERT INTO ${this.table} (id, doc) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO NOTHING RETURNING doc`, [doc._id, json], 'insn', options?.event, sameData(options?.event, doc, json))).rows[0]?.doc;
  }

  /** Runs write statement `text` (returning rows) and, when it is given an event and this
   *  process has an outbox, stores the event in the outbox by the same statement (so in the
   *  same transaction) for every write that returned a row; marks the event stored then. */
  private async writeWithEvent<R extends pg.QueryResultRow>(text: string, values: unknown[], name: string, event: WriteOptions['event'], dataJson?: string | null): Promise<pg.QueryResult<R>> {
    const outbox = event ? this.db.outbox : undefined;
    if (!event || !outbox) return this.writing(() => this.db.query<R>(text, values, undefined, `${this.table}_${name}`));
    // dataJson null: the event's data is the written row's document, as PostgreSQL made it.
    // Dispatched events' rows go with the write (not inside a write group: its transaction may
    // yet roll back), back to wait for the next one if the statement fails.
    const settled = activeWriteGroup() ? [] : outbox.take();
    const q = withOutbox(text, values, { id: event.id, workspace: event.app, origin: outbox.origin,
      ...(dataJson === null ? { text: outboxHead(event), head: true } : { text: outboxText(event, dataJson) }) }, settled);
    let out: pg.QueryResult<R>;
    try {
      out = await this.writing(() => this.db.query<R>(q.text, q.values, undefined, `${this.table}_${name}_o`));
    } catch (err) {
      if (settled.length) outbox.putBack(settled);
      throw err;
    }
    if (out.rowCount) event.outboxed = true;
    return out;
  }

  async insertMany(docs: Doc[], on?: pg.PoolClient): Promise<void> {
    if (docs.length === 0) return;
    for (const d of docs) checkKeys(d);
    const run = async (c: pg.PoolClient) => {
      // In batches through jsonb_array_elements: one statement per 1,000 documents.
      for (let i = 0; i < docs.length; i += 1000) {
        const batch = docs.slice(i, i + 1000);
        await c.query(`INSERT INTO ${this.table} (id, doc) SELECT d ->> '_id', d FROM jsonb_array_elements($1::jsonb) AS t(d)`, [JSON.stringify(batch)]);
      }
    };
    if (on) await run(on);
    else await this.writing(() => this.db.tx(run));
  }

  async replace(id: string, doc: Doc, options?: WriteOptions): Promise<Doc | undefined> {
    const next = { ...doc, _id: id };
    checkKeys(next);
    const json = toJson(next);
    return (await this.writeWithEvent<{ doc: Doc }>(`UPDATE ${this.table} SET doc = $2::jsonb WHERE id = $1 RETURNING doc`, [id, json], 'upd', options?.event, sameData(options?.event, doc, json))).rows[0]?.doc;
  }

  async remove(id: string, options?: WriteOptions): Promise<boolean> {
    return ((await this.writeWithEvent(`DELETE FROM ${this.table} WHERE id = $1 RETURNING id`, [id], 'del', options?.event)).rowCount ?? 0) > 0;
  }

  async removeWhere(conditions: Condition[]): Promise<number> {
    const p = new Params();
    return (await this.writing(() => this.db.query(`DELETE FROM ${this.table} ${whereSql(conditions, p)}`, p.values))).rowCount ?? 0;
  }

  /** Swaps the content in one transaction: readers see the old content until it commits, and a
   *  unique violation leaves it as it was. */
  async replaceAll(docs: Doc[]): Promise<void> {
    for (const d of docs) checkKeys(d);
    await this.writing(() => this.db.tx(async (c) => {
      await c.query(`DELETE FROM ${this.table}`);
      await this.insertMany(docs, c);
    }));
  }

  exclusive<T>(key: string, fn: () => Promise<T> | T): Promise<T> {
    return this.db.exclusive(this.table, key, fn);
  }

  /** A read-modify-write of one document without a lock: the row is read with its version
   *  (`xmin`, the transaction that wrote it) and written only if it is still that version, in
   *  one statement with the change's event; a row changed meanwhile (by any writer, in any
   *  process) is read again and `change` applied to it again. Every process updating a document
   *  through here thus applies its change to the previous one's result, in two round trips
   *  instead of four (lock, read, write, unlock), the read sent with the other reads by id of
   *  its turn (read-batch.ts). After a few lost races the tries go on inside
   *  `exclusive(id)`, so that writers of one hot document take turns. */
  async update(id: string, change: (current: Doc) => Doc | undefined | Promise<Doc | undefined>, options?: UpdateOptions): Promise<Doc | undefined> {
    if (typeof id !== 'string' || id.includes('\u0000')) return undefined;
    const attempt = async (): Promise<{ done: true; doc: Doc | undefined } | { done: false }> => {
      // With the other reads by id of this turn (read-batch.ts), but inside a write group.
      const row = activeWriteGroup()
        ? (await this.db.query<{ doc: Doc; v: string }>(`SELECT doc, xmin::text AS v FROM ${this.table} WHERE id = $1`, [id], undefined, `${this.table}_getv`)).rows[0]
        : await this.db.reads.readVersioned(this.table, id);
      if (!row) return { done: true, doc: undefined };
      const next = await change(row.doc);
      if (!next) return { done: true, doc: undefined };
      const doc = { ...next, _id: id };
      checkKeys(doc);
      const json = toJson(doc);
      const event = options?.event?.(doc);
      const out = await this.writeWithEvent<{ doc: Doc }>(`UPDATE ${this.table} SET doc = $2::jsonb WHERE id = $1 AND xmin = $3::xid RETURNING doc`, [id, json, row.v], 'updv', event, sameData(event, doc, json));
      return out.rows[0] ? { done: true, doc: out.rows[0].doc } : { done: false };
    };
    for (let tries = 0; tries < UPDATE_TRIES_UNLOCKED; tries++) {
      const r = await attempt();
      if (r.done) return r.doc;
    }
    return this.exclusive(id, async () => {
      for (;;) {
        const r = await attempt();
        if (r.done) return r.doc;
      }
    });
  }

  /** A partial update as one statement: `doc || fields` where the row lives, with its event (its
   *  data the row as written) in the outbox. No read before it and no version check: the row's
   *  lock orders concurrent patches, each applied to the one before. */
  async patch(id: string, fields: Record<string, unknown>, options?: PatchOptions): Promise<Doc | undefined> {
    if (typeof id !== 'string' || id.includes('\u0000')) return undefined;
    if (Object.prototype.hasOwnProperty.call(fields, '_id')) throw new Error('A patch never sets _id');
    checkKeys(fields);
    const owner = options?.owner !== undefined;
    const text = `UPDATE ${this.table} SET doc = doc || $2::jsonb WHERE id = $1${owner ? ` AND doc -> '_owner' = to_jsonb($3::text)` : ''} RETURNING doc`;
    const values = owner ? [id, JSON.stringify(fields), options!.owner] : [id, JSON.stringify(fields)];
    return (await this.writeWithEvent<{ doc: Doc }>(text, values, owner ? 'patcho' : 'patch', options?.event, null)).rows[0]?.doc;
  }

  async ensureIndex(spec: IndexSpec): Promise<void> {
    const key = indexKeyOf(spec.fieldName);
    if (key === '_id' || key === 'createdAt') return;
    const fields = key.split(',');
    for (const f of fields) pathExpr(f); // refuses a path that is not one
    await this.db.tx(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`homebase-index:${this.table}`]);
      const have = (await c.query<{ is_unique: boolean }>('SELECT is_unique FROM homebase_indexes WHERE table_name = $1 AND field_name = $2', [this.table, key])).rows[0];
      if (have && have.is_unique === !!spec.unique) return;
      if (have) await this.dropIndexes(c, key);
      await createIndex(c, this.table, key, !!spec.unique);
    });
    this.ordered = undefined;
  }

  async removeIndex(fieldName: string): Promise<void> {
    const key = indexKeyOf(fieldName);
    if (key === '_id' || key === 'createdAt') return;
    await this.db.tx(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`homebase-index:${this.table}`]);
      await this.dropIndexes(c, key);
    });
    this.ordered = undefined;
  }

  async listIndexes(): Promise<Array<{ fieldName: string; unique: boolean }>> {
    const rows = (await this.db.query<{ field_name: string; is_unique: boolean }>(
      'SELECT field_name, is_unique FROM homebase_indexes WHERE table_name = $1 ORDER BY field_name', [this.table])).rows;
    return [{ fieldName: 'createdAt', unique: false }, ...rows.map((r) => ({ fieldName: r.field_name, unique: r.is_unique }))];
  }

  async drop(): Promise<void> {
    await this.writing(() => this.db.tx(async (c) => {
      await c.query('DELETE FROM homebase_stores WHERE table_name = $1', [this.table]);
      await c.query(`DROP TABLE IF EXISTS ${this.table}`);
    }));
  }

  private dropIndexes(c: pg.PoolClient, key: string): Promise<void> {
    return dropIndex(c, this.table, key);
  }
}

/** `json` (the written document's JSON) when the event's data is that document (a record
 *  event), so the outbox row reuses it; undefined when the event carries something else (a
 *  user's public fields, a file object), whose JSON is made from the event itself. */
function sameData(event: WriteOptions['event'], doc: Doc, json: string): string | undefined {
  return event && event.data === doc ? json : undefined;
}
