// The DDL of store tables: a store's table with its primary key and createdAt sort index, and
// a user index (lookups, uniqueness, ordered reads for sorts), recorded in homebase_indexes.
import type pg from 'pg';
import { hashKeysExpr, indexName, orderedIndexesSql, pathExpr, sortExprs } from './sql-query.js';

/** Creates the index on `key` (fields joined by commas) of a store table, within transaction
 *  `c`, and records it in homebase_indexes. */
export async function createIndex(c: pg.PoolClient, table: string, key: string, unique: boolean): Promise<void> {
  const name = indexName(table, key);
  const fields = key.split(',');
  // Lookups: a GIN index over the digests of the equality keys of each field.
  for (const [i, f] of fields.entries()) await c.query(`CREATE INDEX ${name}_k${i} ON ${table} USING gin (${hashKeysExpr(f)})`);
  // Unique: enforced by PostgreSQL itself, across every process writing to the table. A
  // document lacking a field is not indexed (SQL NULL), as the embedded stores' sparse index.
  if (unique) await c.query(`CREATE UNIQUE INDEX ${name}_u ON ${table} (${fields.map((f) => `md5((${pathExpr(f)})::text)`).join(', ')})`);
  // Sorts: lists sorted by the field read a page in order instead of sorting every match.
  for (const sql of orderedIndexesSql(table, key)) await c.query(sql);
  await c.query('INSERT INTO homebase_indexes (table_name, field_name, is_unique) VALUES ($1, $2, $3)', [table, key, unique]);
}

/** Drops the index on `key` of a store table within transaction `c`. */
export async function dropIndex(c: pg.PoolClient, table: string, key: string): Promise<void> {
  const name = indexName(table, key);
  for (let i = 0; i < key.split(',').length; i++) await c.query(`DROP INDEX IF EXISTS ${name}_k${i}`);
  await c.query(`DROP INDEX IF EXISTS ${name}_u`);
  for (const suffix of ['s', 'sa', 'sd', 'sx']) await c.query(`DROP INDEX IF EXISTS ${name}_${suffix}`);
  await c.query('DELETE FROM homebase_indexes WHERE table_name = $1 AND field_name = $2', [table, key]);
}

/** The statements that create a store table named `table` (empty) with its primary key and the
 *  index on the sort key of `createdAt`. `withKey` false leaves the primary key for later (a
 *  table filled in bulk builds its index once, after the rows are in). */
export function storeTableSql(table: string, withKey = true): string[] {
  return [
    `CREATE TABLE ${table} (id text COLLATE "C" ${withKey ? 'PRIMARY KEY' : 'NOT NULL'}, doc jsonb NOT NULL)`,
    // Lists are ordered by createdAt by default: an index on its sort key answers a page
    // without sorting the whole store.
    ...(withKey ? [createdIndexSql(table)] : []),
  ];
}

export const createdIndexSql = (table: string) => `CREATE INDEX ${table}_created ON ${table} (${sortExprs('createdAt').join(', ')}, id)`;

/** An index's key: one field, or several joined by commas in sorted order. */
export function indexKeyOf(fieldName: string): string {
  return fieldName.includes(',') ? fieldName.split(',').sort().join(',') : fieldName;
}
