// Reads of one document by id, gathered over one turn of the event loop and sent as one
// statement. Every signed-in request reads its session and user, and a record GET its record:
// two round trips each, and with ten clients at once as many statements. A round trip costs
// both processes a socket write and a wake-up, which on a busy machine is most of a read's cost
// (a primary-key lookup is a few microseconds of PostgreSQL's time). Requests that arrive
// together (the usual case under load) now share a statement, and the same document asked for
// twice in a batch (the session of ten requests by one user) is read once.
//
// A whole store's read (`all`: the webhooks and scenarios stores every event looks at, after the
// write that published it) goes in the same statement: the reads of a turn, by id or whole, cost
// one round trip.
//
// Nothing changes in what a read sees: the statement is sent in the same turn of the event loop
// (setImmediate, after the requests that arrived together have run to their reads), so a read
// asked for after a write has finished is sent after it, and a read inside a write group does
// not come here (it runs on the group's transaction).
import type pg from 'pg';
import type { Doc } from '../query.js';

/** At most this many documents of one table in one statement (the rest go in the next). */
export const MAX_BATCH_IDS = 500;
/** Sets of several stores whose statement is named (prepared, with its plan, on each connection
 *  that runs it: about 50 kB of PostgreSQL's memory for three stores), the first ones read. */
export const MAX_NAMED_SHAPES = 128;

/** A document read, with its row's version (`xmin` as text: an update checks it is unchanged). */
export interface VersionedDoc { doc: Doc; v: string }
type Waiter = { resolve: (row: VersionedDoc | undefined) => void; reject: (err: unknown) => void };
type ScanWaiter = { resolve: (docs: Doc[]) => void; reject: (err: unknown) => void };
type Run = (text: string, values: unknown[], name?: string) => Promise<pg.QueryResult<{ s: number; id: string; doc: Doc; v: string }>>;

export class ReadBatch {
  /** Reads waiting for the next statement: table → id → who asked. */
  private pending = new Map<string, Map<string, Waiter[]>>();
  /** Whole-table reads waiting for the next statement: table → who asked. */
  private scans = new Map<string, ScanWaiter[]>();
  private scheduled = false;
  /** Names given to statements over several stores (named). */
  private readonly shapes = new Set<string>();

  /** `run` sends a statement (the database handle's query: errors translated, closed refused). */
  constructor(private readonly run: Run) {}

  /** Document `id` of store table `table`, read with whatever else is asked in this turn. */
  async read(table: string, id: string): Promise<Doc | undefined> {
    return (await this.readVersioned(table, id))?.doc;
  }

  /** `read`, with the row's version. */
  readVersioned(table: string, id: string): Promise<VersionedDoc | undefined> {
    return new Promise((resolve, reject) => {
      let byId = this.pending.get(table);
      if (!byId) this.pending.set(table, byId = new Map());
      const waiters = byId.get(id);
      if (waiters) waiters.push({ resolve, reject });
      else byId.set(id, [{ resolve, reject }]);
      this.schedule();
    });
  }

  /** Every document of store table `table`, ordered by id, read with whatever else is asked in
   *  this turn. */
  scan(table: string): Promise<Doc[]> {
    return new Promise((resolve, reject) => {
      const waiters = this.scans.get(table);
      if (waiters) waiters.push({ resolve, reject });
      else this.scans.set(table, [{ resolve, reject }]);
      this.schedule();
    });
  }

  private schedule(): void {
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = new Map();
    const scans = this.scans;
    this.scans = new Map();
    // A batch larger than MAX_BATCH_IDS for a table leaves the rest for the next statement.
    for (const [table, byId] of batch) {
      if (byId.size <= MAX_BATCH_IDS) continue;
      const rest = new Map([...byId].slice(MAX_BATCH_IDS));
      for (const id of rest.keys()) byId.delete(id);
      for (const [id, waiters] of rest) for (const w of waiters) this.readVersioned(table, id).then(w.resolve, w.reject);
    }
    void this.send(batch, scans);
  }

  /** `name`, if a statement of `parts` stores may have one: a single store's always (one per
   *  store, like its other statements); a set of several only among the first MAX_NAMED_SHAPES
   *  sets named (which stores are read together is up to the callers, and each named statement
   *  stays prepared, with its plan, on every connection that ran it); the others go unnamed,
   *  parsed and planned each time. */
  private named(name: string | undefined, parts: number): string | undefined {
    if (name === undefined || parts === 1 || this.shapes.has(name)) return name;
    if (this.shapes.size >= MAX_NAMED_SHAPES) return undefined;
    this.shapes.add(name);
    return name;
  }

  private async send(batch: Map<string, Map<string, Waiter[]>>, scans: Map<string, ScanWaiter[]>): Promise<void> {
    const tables = [...batch.keys()].sort();
    const whole = [...scans.keys()].sort();
    try {
      const { text, name } = batchSql(tables, whole);
      const rows = (await this.run(text, tables.map((t) => [...batch.get(t)!.keys()]), this.named(name, tables.length + whole.length))).rows;
      settle(batch, tables, rows);
      whole.forEach((t, j) => {
        const docs = rows.filter((r) => r.s === tables.length + j).map((r) => r.doc);
        for (const w of scans.get(t)!) w.resolve([...docs]); // an array each: a caller may sort its own
      });
    } catch (err) {
      if (tables.length + whole.length === 1) {
        fail(batch, err);
        for (const waiters of scans.values()) for (const w of waiters) w.reject(err);
        return;
      }
      // One table's failure (dropped meanwhile) must not fail the reads of the others.
      await Promise.all([
        ...tables.map((t) => this.send(new Map([[t, batch.get(t)!]]), new Map())),
        ...whole.map((t) => this.send(new Map(), new Map([[t, scans.get(t)!]]))),
      ]);
    }
  }
}

/** The statement reading ids `$k` (text[]) of `tables[k]` for each k, rows tagged with k, and
 *  every row of `whole[j]`, tagged with tables.length + j (then ordered by tag and id). Named
 *  (prepared on each connection once) when the tables are store tables (hb_s_<n>) whose numbers
 *  make a short name. */
export function batchSql(tables: string[], whole: string[] = []): { text: string; name?: string } {
  const parts = [
    ...tables.map((t, k) => `SELECT ${k} AS s, id, doc, xmin::text AS v FROM ${t} WHERE id = ANY($${k + 1}::text[])`),
    ...whole.map((t, j) => `SELECT ${tables.length + j} AS s, id, doc, xmin::text AS v FROM ${t}`),
  ];
  const text = parts.join(' UNION ALL ') + (whole.length ? ' ORDER BY s, id' : '');
  const number = (t: string) => /^hb_s_(\d+)$/.exec(t)?.[1];
  const numbers = [...tables.map(number), ...whole.map((t) => number(t) && `a${number(t)}`)];
  const name = numbers.every((n) => n !== undefined) ? `hb_get_${numbers.join('_')}` : undefined;
  return { text, name: name && name.length <= 60 ? name : undefined };
}

function settle(batch: Map<string, Map<string, Waiter[]>>, tables: string[], rows: Array<{ s: number; id: string; doc: Doc; v: string }>): void {
  const found = tables.map(() => new Map<string, VersionedDoc>());
  for (const r of rows) if (r.s < tables.length) found[r.s].set(r.id, { doc: r.doc, v: r.v });
  tables.forEach((t, k) => {
    for (const [id, waiters] of batch.get(t)!) for (const w of waiters) w.resolve(found[k].get(id));
  });
}

function fail(batch: Map<string, Map<string, Waiter[]>>, err: unknown): void {
  for (const byId of batch.values()) for (const waiters of byId.values()) for (const w of waiters) w.reject(err);
}
