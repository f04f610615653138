// The one error of the PostgreSQL driver's start (kept apart from the driver so that the CLI can
// recognise it without loading the `pg` client when no database is used), and the rule that keeps
// a database URL's password out of every message and banner.

/** A bad, unreachable or unusable database: its message is the one line the CLI prints. */
export class DatabaseError extends Error {}

/** The URL without its password, for messages and the start banner. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}
