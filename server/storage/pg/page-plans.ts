// List pages planned once per connection instead of on every request. A page's SQL is long (a
// filter and a sort written over the expressions of the indexes, sql-query.ts), and PostgreSQL
// spent as much CPU planning it as running it: about 0.8 ms of each at 100,000 records, for a
// page read from an ordered index. A prepared statement with parameters does not help: its
// generic plan cannot see the filter's values, and without them the planner takes a filter on
// any value for a rare one and reads every match, then sorts (150 ms where the page takes 1 ms).
//
// So a page is prepared with its values written into the SQL as literals (the very plan an
// unprepared statement gets for them), on the connection that runs it, and executed again by
// name the next times the same page is asked for on that connection: `PREPARE name AS ...;
// EXECUTE name` the first time, `EXECUTE name` after, each one round trip of the simple query
// protocol, planned without parallel workers (SERIAL). PostgreSQL plans it again by itself when
// the table's indexes or statistics change (another process creating an index, ANALYZE).
// Nothing is kept but the plan: every execution reads the table as it is then.
//
// Bounded: at most MAX_PLANS statements per connection, the least recently used deallocated
// first (in the same round trip as the statement that takes its place). A connection whose
// statement failed is closed rather than reused (it may hold a statement this side no longer
// knows of, or miss one it thinks it has).
import pg from 'pg';

/** Prepared pages kept per connection: each is a plan in that PostgreSQL backend's memory, about
 *  170 kB for a filtered page sorted on an indexed field. */
export const MAX_PLANS = 16;
/** Characters of the longest page prepared: a longer one (big filter values, each written into
 *  the text as often as the SQL names it) goes the usual way, planned for its one execution and
 *  then freed, rather than held with its plan by both processes for the connection's life. */
export const MAX_PLAN_TEXT = 16 * 1024;
/** A placeholder ($n followed by a cast), or a quoted literal or identifier to step over whole: a
 *  field name may hold `$1::` too, and it sits in the SQL as a quoted literal that a value must
 *  never be written into. */
const PLACEHOLDER = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(\d+)::/g;
/** Set for the statement's own (implicit) transaction, so that a plan made or made again by the
 *  EXECUTE after it has no parallel workers: a page is one of many requests at once, and its
 *  workers cost more than they save (PostgreSQL's CPU for a page sorted over 25,000 matches
 *  without an index, 10 clients: 40 ms with them, 30 without). */
const SERIAL = 'SET LOCAL max_parallel_workers_per_gather = 0;';

/** `text` with its placeholders ($n followed by a cast, as sql-query.ts Params writes them)
 *  replaced by `values` as SQL literals; undefined when a value cannot be one (text holding NUL,
 *  which a query's text cannot carry: such a page goes the usual way and is refused there). */
export function inlineValues(text: string, values: unknown[]): string | undefined {
  const literals: string[] = [];
  for (const v of values) {
    const lit = literalOf(v);
    if (lit === undefined) return undefined;
    literals.push(lit);
  }
  let bad = false;
  const out = text.replace(PLACEHOLDER, (quoted: string, n: string | undefined) => {
    if (n === undefined) return quoted;
    const lit = literals[Number(n) - 1];
    if (lit === undefined) bad = true;
    return `${lit}::`;
  });
  return bad ? undefined : out;
}

/** A parameter's value (what the page queries pass: text, a finite number, an array of text) as
 *  an SQL literal, the text PostgreSQL would read the parameter from; undefined for anything else. */
function literalOf(v: unknown): string | undefined {
  if (v === null) return 'NULL';
  if (typeof v === 'number') return Number.isFinite(v) ? pg.escapeLiteral(String(v)) : undefined;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return v.includes('\u0000') ? undefined : pg.escapeLiteral(v);
  if (Array.isArray(v) && v.every((e) => typeof e === 'string' && !e.includes('\u0000'))) {
    // An array literal: each element double-quoted, its backslashes and double quotes escaped.
    return pg.escapeLiteral(`{${(v as string[]).map((e) => `"${e.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`);
  }
  return undefined;
}

export class PagePlans {
  /** Per connection: statement text → its name, least recently used first. */
  private readonly byClient = new WeakMap<pg.PoolClient, Map<string, string>>();
  private seq = 0;
  /** Statements prepared since the start (tests, diagnostics). */
  prepared = 0;

  constructor(private readonly pool: pg.Pool, private readonly max = MAX_PLANS) {}

  /** The rows of `text` (a SELECT with no placeholder left), from the connection's prepared
   *  statement of it, prepared now if it has none. */
  async rows<R extends pg.QueryResultRow>(text: string): Promise<R[]> {
    const client = await this.pool.connect();
    let failed: unknown;
    try {
      let plans = this.byClient.get(client);
      if (!plans) this.byClient.set(client, plans = new Map());
      let name = plans.get(text);
      let sql: string;
      if (name !== undefined) {
        plans.delete(text);
        plans.set(text, name);
        sql = `${SERIAL} EXECUTE ${name}`;
        const results = (await client.query(sql)) as unknown as Array<pg.QueryResult<R>>;
        return results[results.length - 1].rows;
      }
      name = `hb_page_${(++this.seq).toString(36)}`;
      sql = `PREPARE ${name} AS ${text}; ${SERIAL} EXECUTE ${name}`;
      if (plans.size >= this.max) {
        const [oldText, oldName] = plans.entries().next().value as [string, string];
        plans.delete(oldText);
        sql = `DEALLOCATE ${oldName}; ${sql}`;
      }
      // Known before the answer: if it fails the connection is closed anyway.
      plans.set(text, name);
      this.prepared++;
      const results = (await client.query(sql)) as unknown as Array<pg.QueryResult<R>>;
      return results[results.length - 1].rows;
    } catch (err) {
      failed = err;
      throw err;
    } finally {
      client.release(failed instanceof Error ? failed : failed === undefined ? undefined : true);
    }
  }
}
