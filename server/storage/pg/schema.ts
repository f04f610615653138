// The PostgreSQL driver's own schema, created and upgraded by the driver at start. A one-row
// table `homebase_schema` records the version; upgrades run in order inside one transaction,
// under an advisory lock so that several processes starting at once upgrade it once. A database
// written by a newer Homebase (a version above SCHEMA_VERSION) is refused, never downgraded.
//
// The SQL functions below give PostgreSQL the embedded stores' query semantics (query-match.ts), so
// that one list request answers the same on both drivers:
//  hb_walk      a dot path's value (arrays are indexed by a numeric segment, or mapped over)
//  hb_keys      the values an equality matches: the value, and an array's elements (recursively)
//  hb_rank/...  the sort key of nedb's compareThings: undefined < null < numbers < strings <
//               booleans < arrays < objects, arrays element by element then by length
//  hb_numstr    the number a string reads as in JavaScript (Number(s), finite), or null
//  hb_iso_ms    parseIsoDate: an ISO 8601 date as ms since the epoch, or null
//  hb_cmp_any   the range operators ($gt $gte $lt $lte) of comparesAny
//  hb_lower     JavaScript's toLowerCase (Unicode, through ICU when the server has it)
import type pg from 'pg';
import { indexName, orderedIndexesSql, sortIndexSql } from './sql-query.js';

export const SCHEMA_VERSION = 11;
/** pg_advisory_xact_lock key of schema upgrades ("hbschema" in ASCII, as a bigint). */
const UPGRADE_LOCK = '7521982628095370593';

export class SchemaTooNewError extends Error {}

const V1 = (lowerBody: string) => `
CREATE TABLE homebase_stores (
  workspace text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  table_name text COLLATE "C" NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace, name)
);
CREATE SEQUENCE homebase_store_seq;
CREATE TABLE homebase_indexes (
  table_name text COLLATE "C" NOT NULL REFERENCES homebase_stores (table_name) ON DELETE CASCADE,
  field_name text COLLATE "C" NOT NULL,
  is_unique boolean NOT NULL,
  PRIMARY KEY (table_name, field_name)
);

CREATE TYPE hb_elem AS (r int, n numeric, s text COLLATE "C", b boolean);

CREATE FUNCTION hb_walk(v jsonb, parts text[], i int) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n int := array_length(parts, 1);
  nxt jsonb;
  idx text;
  e jsonb;
  r jsonb;
  acc jsonb;
BEGIN
  IF v IS NULL THEN RETURN NULL; END IF;
  IF i > n THEN RETURN v; END IF;
  IF jsonb_typeof(v) = 'object' THEN
    nxt := v -> parts[i];
  ELSIF jsonb_typeof(v) = 'array' AND parts[i] ~ '^(0|[1-9][0-9]{0,8})$' THEN
    nxt := v -> parts[i]::int;
  ELSE
    RETURN NULL;
  END IF;
  IF nxt IS NULL THEN RETURN NULL; END IF;
  IF jsonb_typeof(nxt) = 'array' AND i < n THEN
    idx := substring(parts[i + 1] from '^[0-9]+');
    IF idx IS NULL THEN
      acc := '[]';
      FOR e IN SELECT x FROM jsonb_array_elements(nxt) AS t(x) LOOP
        r := hb_walk(e, parts, i + 1);
        IF r IS NOT NULL THEN acc := acc || jsonb_build_array(r); END IF;
      END LOOP;
      RETURN acc;
    END IF;
    IF length(idx) > 9 THEN RETURN NULL; END IF;
    RETURN hb_walk(nxt -> idx::int, parts, i + 2);
  END IF;
  RETURN hb_walk(nxt, parts, i + 1);
END $$;

CREATE FUNCTION hb_path(doc jsonb, parts text[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT hb_walk(doc, parts, 1) $$;

CREATE FUNCTION hb_keys_array(v jsonb) RETURNS jsonb[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE out jsonb[] := ARRAY[v]; e jsonb;
BEGIN
  FOR e IN SELECT x FROM jsonb_array_elements(v) AS t(x) LOOP
    IF jsonb_typeof(e) = 'array' THEN out := out || hb_keys_array(e); ELSE out := out || e; END IF;
  END LOOP;
  RETURN out;
END $$;

CREATE FUNCTION hb_keys(v jsonb) RETURNS jsonb[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'array' THEN hb_keys_array(v) ELSE ARRAY[v] END
$$;

-- Fixed-size digests of the equality keys, for GIN indexes (PostgreSQL limits an index entry to
-- about 2.7 kB, a record's value is not limited); every use rechecks with hb_keys.
CREATE FUNCTION hb_hkeys(v jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ARRAY(SELECT md5(k::text) FROM unnest(hb_keys(v)) AS t(k)) $$;

CREATE FUNCTION hb_rank(v jsonb) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN v IS NULL THEN 0 ELSE CASE jsonb_typeof(v)
    WHEN 'null' THEN 1 WHEN 'number' THEN 2 WHEN 'string' THEN 3 WHEN 'boolean' THEN 4 WHEN 'array' THEN 6 ELSE 7 END END
$$;
CREATE FUNCTION hb_num(v jsonb) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN v::numeric END $$;
CREATE FUNCTION hb_str(v jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT CASE WHEN jsonb_typeof(v) = 'string' THEN (v #>> '{}') COLLATE "C" END $$;
CREATE FUNCTION hb_bool(v jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT CASE WHEN jsonb_typeof(v) = 'boolean' THEN v::boolean END $$;
CREATE FUNCTION hb_arr(v jsonb) RETURNS hb_elem[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'array' THEN coalesce((
    SELECT array_agg(ROW(hb_rank(e), hb_num(e), hb_str(e), hb_bool(e))::hb_elem ORDER BY o)
    FROM jsonb_array_elements(v) WITH ORDINALITY AS t(e, o)), '{}'::hb_elem[]) END
$$;

CREATE FUNCTION hb_lower(s text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ ${lowerBody} $$;

CREATE FUNCTION hb_numstr(s text) RETURNS float8
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE t text := regexp_replace(s, '^[\\t\\n\\v\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF]+|[\\t\\n\\v\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF]+$', '', 'g');
BEGIN
  IF t ~ '^[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?$' THEN
    BEGIN RETURN t::float8; EXCEPTION WHEN numeric_value_out_of_range THEN RETURN NULL; END;
  ELSIF t ~ '^0[xX][0-9a-fA-F]+$' AND length(t) <= 15 THEN RETURN ('x' || lpad(substr(t, 3), 16, '0'))::bit(64)::bigint::float8;
  ELSIF t ~ '^0[bB][01]+$' AND length(t) <= 54 THEN RETURN lpad(substr(t, 3), 64, '0')::bit(64)::bigint::float8;
  ELSIF t ~ '^0[oO][0-7]+$' AND length(t) <= 19 THEN
    RETURN (SELECT sum(substr(t, 2 + k, 1)::int * 8::numeric ^ (length(t) - 2 - k)) FROM generate_series(1, length(t) - 2) AS k)::float8;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION hb_days_from_civil(y int, m int, d int) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE yy bigint := CASE WHEN m <= 2 THEN y - 1 ELSE y END; era bigint; yoe bigint; doy bigint;
BEGIN
  era := floor(yy / 400.0);
  yoe := yy - era * 400;
  doy := (153 * (CASE WHEN m > 2 THEN m - 3 ELSE m + 9 END) + 2) / 5 + d - 1;
  RETURN era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
END $$;

CREATE FUNCTION hb_iso_ms(s text) RETURNS float8
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  g text[];
  y int; mo int; d int; h int := 0; mi int := 0; sec int := 0; ms int := 0; off int := 0; dim int;
BEGIN
  g := regexp_match(s, '^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\\.([0-9]{1,9}))?)?(?:Z|([+-])([0-9]{2}):?([0-9]{2}))?)?$');
  IF g IS NULL THEN RETURN NULL; END IF;
  y := g[1]::int; mo := g[2]::int; d := g[3]::int;
  IF mo < 1 OR mo > 12 THEN RETURN NULL; END IF;
  dim := CASE WHEN mo = 2 AND ((y % 4 = 0 AND y % 100 <> 0) OR y % 400 = 0) THEN 29
    ELSE (ARRAY[31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])[mo] END;
  IF d < 1 OR d > dim THEN RETURN NULL; END IF;
  IF g[4] IS NOT NULL THEN h := g[4]::int; mi := g[5]::int; END IF;
  IF g[6] IS NOT NULL THEN sec := g[6]::int; END IF;
  IF g[7] IS NOT NULL THEN ms := substr(g[7] || '000', 1, 3)::int; END IF;
  IF h > 23 OR mi > 59 OR sec > 59 THEN RETURN NULL; END IF;
  IF g[8] IS NOT NULL THEN
    IF g[9]::int > 23 OR g[10]::int > 59 THEN RETURN NULL; END IF;
    off := (CASE WHEN g[8] = '-' THEN -1 ELSE 1 END) * (g[9]::int * 60 + g[10]::int);
  END IF;
  RETURN (hb_days_from_civil(y, mo, d) * 86400000 + h * 3600000 + mi * 60000 + sec * 1000 + ms - off * 60000)::float8;
END $$;

-- One range comparison, as comparesAny in query-match.ts: ok(r) for op on r = sign(value - bound).
CREATE FUNCTION hb_ok(r int, op text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE op WHEN '$gt' THEN r > 0 WHEN '$gte' THEN r >= 0 WHEN '$lt' THEN r < 0 ELSE r <= 0 END
$$;

CREATE FUNCTION hb_cmp_any(v jsonb, op text, bounds jsonb, kind text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE a jsonb; e jsonb; t float8; n float8; vt text;
BEGIN
  IF v IS NULL THEN RETURN false; END IF;
  vt := jsonb_typeof(v);
  IF vt = 'null' THEN RETURN false; END IF;
  IF vt = 'array' THEN
    FOR e IN SELECT x FROM jsonb_array_elements(v) AS q(x) LOOP
      IF hb_cmp_any(e, op, bounds, kind) THEN RETURN true; END IF;
    END LOOP;
    RETURN false;
  END IF;
  IF kind = 'date' THEN
    IF vt <> 'string' THEN RETURN false; END IF;
    t := hb_iso_ms(v #>> '{}');
    IF t IS NULL THEN RETURN false; END IF;
    FOR a IN SELECT x FROM jsonb_array_elements(bounds) AS q(x) LOOP
      IF jsonb_typeof(a) = 'number' AND hb_ok(sign(t - a::float8)::int, op) THEN RETURN true; END IF;
    END LOOP;
    RETURN false;
  END IF;
  FOR a IN SELECT x FROM jsonb_array_elements(bounds) AS q(x) LOOP
    IF jsonb_typeof(a) = 'null' THEN CONTINUE; END IF;
    IF jsonb_typeof(a) = vt THEN
      IF vt = 'number' AND hb_ok(sign(v::numeric - a::numeric)::int, op) THEN RETURN true; END IF;
      IF vt = 'string' AND hb_ok(CASE WHEN (v #>> '{}') COLLATE "C" < (a #>> '{}') COLLATE "C" THEN -1
        WHEN (v #>> '{}') = (a #>> '{}') THEN 0 ELSE 1 END, op) THEN RETURN true; END IF;
      IF vt = 'boolean' AND hb_ok(v::boolean::int - a::boolean::int, op) THEN RETURN true; END IF;
    ELSIF jsonb_typeof(a) = 'number' AND vt = 'string' THEN
      n := hb_numstr(v #>> '{}');
      IF n IS NOT NULL AND hb_ok(sign(n - a::float8)::int, op) THEN RETURN true; END IF;
    END IF;
  END LOOP;
  RETURN false;
END $$;

-- $contains: a string holding any needle (case-insensitive), or an array with an element equal
-- to one of the values.
CREATE FUNCTION hb_contains(v jsonb, needles text[], vals jsonb[]) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(v)
    WHEN 'string' THEN EXISTS (SELECT 1 FROM unnest(needles) AS n WHERE strpos(hb_lower(v #>> '{}'), n) > 0)
    WHEN 'array' THEN EXISTS (SELECT 1 FROM jsonb_array_elements(v) AS e(x) WHERE hb_keys(e.x) && vals)
    ELSE false END
$$;

CREATE FUNCTION hb_starts(v jsonb, prefixes text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT jsonb_typeof(v) = 'string' AND EXISTS (SELECT 1 FROM unnest(prefixes) AS p WHERE starts_with(hb_lower(v #>> '{}'), p))
$$;
`;

// Version 2: what several processes share besides the stores (coordination.ts).
const V2 = `
CREATE TABLE homebase_event_payloads (
  id uuid PRIMARY KEY, workspace text NOT NULL, event jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE homebase_deliveries (
  id uuid PRIMARY KEY, workspace text COLLATE "C" NOT NULL, webhook_id text COLLATE "C" NOT NULL, event jsonb NOT NULL,
  attempt int NOT NULL, due_at timestamptz NOT NULL, leased_until timestamptz);
CREATE INDEX homebase_deliveries_due ON homebase_deliveries (due_at);
CREATE INDEX homebase_deliveries_hook ON homebase_deliveries (workspace, webhook_id);
CREATE TABLE homebase_ticks (
  workspace text COLLATE "C" NOT NULL, scenario_id text COLLATE "C" NOT NULL, tick timestamptz NOT NULL,
  PRIMARY KEY (workspace, scenario_id, tick));
CREATE TABLE homebase_login_attempts (
  id uuid PRIMARY KEY, workspace text COLLATE "C" NOT NULL, email text COLLATE "C" NOT NULL,
  begun_at timestamptz NOT NULL DEFAULT now(), failed_at timestamptz);
CREATE INDEX homebase_login_attempts_key ON homebase_login_attempts (workspace, email);
CREATE TABLE homebase_snapshots (
  id bigserial PRIMARY KEY, workspace text COLLATE "C" NOT NULL, name text COLLATE "C" NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (workspace, name));
CREATE TABLE homebase_snapshot_tables (
  snapshot_id bigint NOT NULL REFERENCES homebase_snapshots (id) ON DELETE CASCADE,
  store_name text COLLATE "C" NOT NULL, table_name text COLLATE "C" NOT NULL UNIQUE,
  PRIMARY KEY (snapshot_id, store_name));
`;

// What the embedded driver keeps in JSON files: the workspaces with their settings and keys, and
// the console token.
const V3 = `
CREATE TABLE homebase_workspaces (
  id text COLLATE "C" PRIMARY KEY, name text NOT NULL, created_at timestamptz NOT NULL,
  position bigserial, settings jsonb NOT NULL, keys jsonb NOT NULL);
CREATE TABLE homebase_meta (key text COLLATE "C" PRIMARY KEY, value jsonb NOT NULL);
`;

// Snapshots taken through the API: the workspace's settings beside the table copies, the
// figures the API answers with, the folder (under --files) holding the uploaded files' copies,
// and the indexes each copied table carried (a restore rebuilds a table with exactly those).
const V4 = `
ALTER TABLE homebase_snapshots ADD COLUMN settings jsonb, ADD COLUMN info jsonb, ADD COLUMN files_dir text;
ALTER TABLE homebase_snapshot_tables ADD COLUMN indexes jsonb NOT NULL DEFAULT '[]';
`;

// Version 5: the digests of the values an equality looks up (md5 of each, as hb_hkeys), a function
// the planner folds into a constant; and a sort index beside every user index on one field
// (sql-query.ts sortIndexSql; new indexes get theirs from createIndex). Idempotent (CREATE OR
// REPLACE, IF NOT EXISTS), inside the upgrade's one transaction. A large store takes a while
// here, once.
async function v5(c: pg.PoolClient): Promise<void> {
  await c.query(`CREATE OR REPLACE FUNCTION hb_hvals(vals jsonb[]) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ARRAY(SELECT md5(k::text) FROM unnest(vals) AS t(k)) $$`);
  const rows = (await c.query<{ table_name: string; field_name: string }>(
    'SELECT table_name, field_name FROM homebase_indexes ORDER BY table_name, field_name')).rows;
  for (const r of rows) {
    const create = sortIndexSql(r.table_name, r.field_name, true);
    if (create) await c.query(create);
  }
}

// Version 6: hb_hkeys as an expression PostgreSQL inlines (a plain CASE; the subquery only for
// arrays), instead of a function call per row that it could not inline: a filter on an indexed
// field checked row by row (a page read from another field's sort index) cost about 20 µs a row
// in that call. Same digests as before, so the GIN indexes built on hb_hkeys stay valid: the
// planner matches an index to a condition after inlining both, the same way.
const V6 = `
CREATE OR REPLACE FUNCTION hb_hkeys_array(v jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ARRAY(SELECT md5(k::text) FROM unnest(hb_keys_array(v)) AS t(k)) $$;
CREATE OR REPLACE FUNCTION hb_hkeys(v jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'array' THEN hb_hkeys_array(v) ELSE ARRAY[md5(v::text)] END
$$;
`;

// Version 7: a pending webhook delivery lives in its workspace's deliveries store and belongs to
// the process that scheduled it (taken over when that process is gone), so version 2's shared
// delivery table, never used, goes.
const V7 = 'DROP TABLE IF EXISTS homebase_deliveries';

// Version 8: each user index on one field gets ordered indexes (sql-query.ts orderedIndexesSql:
// its bounded sort keys then the id, both ways, and the values that sort by more apart) in place
// of version 5's sort index, which held no id: a page sorted by the field read every row tied on
// its first value (about 1,500 rows a page at 100,000 records, 16,000 at 1,000,000) where it now
// reads the page. Idempotent; a large store takes a while here, once.
async function v8(c: pg.PoolClient): Promise<void> {
  const rows = (await c.query<{ table_name: string; field_name: string }>(
    'SELECT table_name, field_name FROM homebase_indexes ORDER BY table_name, field_name')).rows;
  for (const r of rows) {
    const create = orderedIndexesSql(r.table_name, r.field_name, true);
    if (!create.length) continue;
    for (const sql of create) await c.query(sql);
    await c.query(`DROP INDEX IF EXISTS ${indexName(r.table_name, r.field_name)}_s`);
  }
}

// Version 9: the `_sx` ordered index again, with its predicate written as an equality (see
// sql-query.ts extraSortSql): version 8's, an inequality, no longer matches the page query.
async function v9(c: pg.PoolClient): Promise<void> {
  const rows = (await c.query<{ table_name: string; field_name: string }>(
    'SELECT table_name, field_name FROM homebase_indexes ORDER BY table_name, field_name')).rows;
  for (const r of rows) {
    const sx = orderedIndexesSql(r.table_name, r.field_name, true).find((sql) => sql.includes('_sx ON'));
    if (!sx) continue;
    await c.query(`DROP INDEX IF EXISTS ${indexName(r.table_name, r.field_name)}_sx`);
    await c.query(sx);
  }
}

// Version 10: the outbox (outbox.ts). A write that publishes an event stores it here in its own
// transaction; the process that wrote it deletes it once its webhook deliveries are stored and it
// is relayed to the other processes, and a live process takes over the events of one that died
// first. `origin` is the process (relay origin) dispatching it; `event` its JSON text.
// Idempotent, as every upgrade (a database set back to an earlier version runs it again).
const V10 = `
CREATE TABLE IF NOT EXISTS homebase_outbox (
  id text COLLATE "C" PRIMARY KEY,
  workspace text COLLATE "C" NOT NULL,
  origin text COLLATE "C" NOT NULL,
  event text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS homebase_outbox_origin ON homebase_outbox (origin, created_at);
`;

// Version 11: what sort columns need (sort-columns.ts): hb_sort_num, a field's number sort key as
// float8 (a boolean as 0 / 1; a number beyond a double's range, which no record written through
// JavaScript holds, clamped rather than refused), and hb_sort_columns, the trigger function that
// fills the sort columns of the fields named in its arguments (pairs: path, column prefix) on every
// insert and every update of `doc`. The columns themselves are added to a table when a page first
// sorts on a field no index orders. Idempotent (CREATE OR REPLACE).
const V11 = `
CREATE OR REPLACE FUNCTION hb_sort_num(v jsonb) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(v)
    WHEN 'number' THEN CASE
      WHEN abs(v::numeric) >= 1.7976931348623157e308 THEN sign(v::numeric)::float8 * 'Infinity'::float8
      WHEN v::numeric <> 0 AND abs(v::numeric) < 4.9e-324 THEN sign(v::numeric)::float8 * 4.9e-324::float8
      ELSE v::float8 END
    WHEN 'boolean' THEN v::boolean::int::float8 END
$$;
CREATE OR REPLACE FUNCTION hb_sort_columns() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE o jsonb := '{}'; v jsonb; i int := 0;
BEGIN
  WHILE i + 1 < TG_NARGS LOOP
    v := CASE WHEN strpos(TG_ARGV[i], '.') = 0 THEN NEW.doc -> TG_ARGV[i] ELSE hb_path(NEW.doc, string_to_array(TG_ARGV[i], '.')) END;
    o := o || jsonb_build_object(TG_ARGV[i + 1] || '_r', hb_rank(v), TG_ARGV[i + 1] || '_n', hb_sort_num(v), TG_ARGV[i + 1] || '_s', hb_str(v));
    i := i + 2;
  END LOOP;
  NEW := jsonb_populate_record(NEW, o);
  RETURN NEW;
END $$;
`;

type Upgrade = (c: pg.PoolClient, hasIcu: boolean) => Promise<unknown>;
const sql = (text: (hasIcu: boolean) => string): Upgrade => (c, hasIcu) => c.query(text(hasIcu));

/** Upgrades, by the version they lead to. */
const UPGRADES: Upgrade[] = [
  sql((hasIcu) => V1(hasIcu ? 'SELECT lower(s COLLATE "und-x-icu")' : 'SELECT lower(s)')),
  sql(() => V2),
  sql(() => V3),
  sql(() => V4),
  v5,
  sql(() => V6),
  sql(() => V7),
  v8,
  v9,
  sql(() => V10),
  sql(() => V11),
];

/** Creates the driver's tables on an empty database, upgrades an older one, refuses a newer one. */
export async function migrate(pool: pg.Pool, target = SCHEMA_VERSION): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(${UPGRADE_LOCK})`);
    await client.query(`CREATE TABLE IF NOT EXISTS homebase_schema (
      id int PRIMARY KEY CHECK (id = 1), version int NOT NULL, upgraded_at timestamptz NOT NULL DEFAULT now())`);
    const row = (await client.query<{ version: number }>('SELECT version FROM homebase_schema WHERE id = 1')).rows[0];
    const current = row?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new SchemaTooNewError(`The database holds Homebase schema version ${current}, newer than this Homebase understands (${SCHEMA_VERSION}); upgrade Homebase or use another database`);
    }
    if (current < target) {
      const hasIcu = (await client.query(`SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'`)).rowCount! > 0;
      for (let v = current + 1; v <= target; v++) await UPGRADES[v - 1](client, hasIcu);
      await client.query(`INSERT INTO homebase_schema (id, version) VALUES (1, $1)
        ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, upgraded_at = now()`, [target]);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
