// The one error of the PostgreSQL driver's start (kept apart from the driver so that the CLI can
// recognise it without loading the `pg` client when no database is used).

/** A bad, unreachable or unusable database: its message is the one line the CLI prints. */
export class DatabaseError extends Error {}
