// The statements a PostgreSQL database handle runs from now on, for tests that count round trips
// or look at the SQL a path sends (the spy is undone by vi.restoreAllMocks()). `pick` says what
// to keep of each statement (undefined: skip it); by default its text.
import { vi } from 'vitest';
import type { PgDatabase } from '../storage/pg/database.js';

export function recordStatements(db: PgDatabase): string[];
export function recordStatements<T>(db: PgDatabase, pick: (text: string, values: unknown[]) => T | undefined): T[];
export function recordStatements<T>(db: PgDatabase, pick?: (text: string, values: unknown[]) => T | undefined): T[] {
  const seen: T[] = [];
  const query = db.query.bind(db);
  vi.spyOn(db, 'query').mockImplementation(((text: string, ...rest: unknown[]) => {
    const kept = pick ? pick(text, (rest[0] ?? []) as unknown[]) : (text as T);
    if (kept !== undefined) seen.push(kept);
    return (query as (...a: unknown[]) => unknown)(text, ...rest);
  }) as typeof db.query);
  return seen;
}
