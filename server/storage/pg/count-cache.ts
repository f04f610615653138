// Exact list totals without counting every match on every request. A list's `meta.total` is a
// count over the whole filter (a page of 50 out of 25,000 matches costs the 25,000), so the
// PostgreSQL driver keeps the last count of each filter of a store table and answers it again
// until the table is written to:
//  - a write by this process forgets the table's counts when its statement has finished (a
//    transaction or a write group: when it has ended), and a count that was running meanwhile
//    is not kept (it may have missed the write);
//  - a write by another process on the same database forgets them when its notice arrives
//    through the event relay (LISTEN/NOTIFY, milliseconds); while this process's listener is
//    cut off, nothing is kept or answered from here, and everything is forgotten when it is
//    back (notices sent meanwhile are lost).
// Bounded: at most MAX_COUNTS totals and MAX_COUNTS_CHARS characters of their keys in all, the
// oldest forgotten first; no total is kept under a key longer than MAX_COUNT_KEY_CHARS.
export const MAX_COUNTS = 10_000;
/** The longest key (count query and values) a total is kept under: a list's filter values may
 *  be large (up to GraphQL's 1 MiB body), and one such key would push out hundreds of others. */
export const MAX_COUNT_KEY_CHARS = 64 * 1024;
/** Characters of keys kept at most, all tables together (MAX_COUNTS keys of that length would
 *  be gigabytes). */
export const MAX_COUNTS_CHARS = 8 * 1024 * 1024;

export class CountCache {
  /** Per table, bumped by each write: a count is kept only if it did not change while it ran. */
  private readonly generations = new Map<string, number>();
  /** Bumped when everything is forgotten at once. */
  private epoch = 0;
  /** Counts by table, then by the count query (its text and values). */
  private readonly counts = new Map<string, Map<string, number>>();
  private size = 0;
  /** Characters of the keys kept. */
  private chars = 0;
  /** False while the counts cannot be kept honestly (another process's notices could be missed). */
  private live: () => boolean = () => true;

  /** Says when other processes' writes can be heard (the relay's listener is connected). */
  liveWhen(live: () => boolean): void { this.live = live; }

  /** What a count must find unchanged at its end to be kept. */
  stamp(table: string): string { return `${this.epoch}:${this.generations.get(table) ?? 0}`; }

  get(table: string, key: string): number | undefined {
    if (!this.live()) return undefined;
    return this.counts.get(table)?.get(key);
  }

  /** Keeps `n`, counted from `stamp` on, unless the table was written to meanwhile. */
  set(table: string, key: string, n: number, stamp: string): void {
    if (stamp !== this.stamp(table) || !this.live() || key.length > MAX_COUNT_KEY_CHARS) return;
    let byKey = this.counts.get(table);
    if (!byKey) this.counts.set(table, byKey = new Map());
    if (!byKey.has(key)) { this.size++; this.chars += key.length; }
    byKey.set(key, n);
    while (this.size > MAX_COUNTS || this.chars > MAX_COUNTS_CHARS) this.dropOldest();
  }

  /** A table was written to (by this process or another). */
  written(table: string): void {
    this.generations.set(table, (this.generations.get(table) ?? 0) + 1);
    const byKey = this.counts.get(table);
    if (byKey) {
      this.size -= byKey.size;
      for (const key of byKey.keys()) this.chars -= key.length;
      this.counts.delete(table);
    }
  }

  /** Anything may have changed (a transaction over several tables, tables swapped, notices lost). */
  forgetAll(): void {
    this.epoch++;
    this.generations.clear();
    this.counts.clear();
    this.size = 0;
    this.chars = 0;
  }

  /** How many totals are kept (tests, diagnostics). */
  get kept(): number { return this.size; }

  private dropOldest(): void {
    const [table, byKey] = this.counts.entries().next().value as [string, Map<string, number>];
    const [key] = byKey.keys();
    byKey.delete(key);
    this.size--;
    this.chars -= key.length;
    if (!byKey.size) this.counts.delete(table);
  }
}
