// The SQL of `or` groups and of a keyset window's position (shared/query.ts): "strictly after
// this position" written over the very expressions ORDER BY sorts by (sortExprs), so that
// PostgreSQL's order and the position test agree, NULLs included (ORDER BY puts them last when
// ascending, first when descending).
import type { Condition, SortKey } from '../query.js';
import { pathExpr, sortExprs, type Params } from './sql-query.js';

/** `AND (…)` for each group: one of its branches, each branch all its conditions. */
export function orGroupsSql(groups: Condition[][][] | undefined, p: Params, conditionSql: (c: Condition, p: Params) => string): string[] {
  return (groups ?? []).map((branches) => `(${branches.map((b) => (b.length ? `(${b.map((c) => conditionSql(c, p)).join(' AND ')})` : 'TRUE')).join(' OR ')})`);
}

/** A key's sort expressions over the row, each with the same expression over the position's
 *  value `pivotX` (a jsonb expression): by default the sortExprs of the path. */
export type PositionTerms = (path: string, pivotX: string) => Array<{ row: string; pivot: string }>;

const exprTerms: PositionTerms = (path, pivotX) => {
  const x = pathExpr(path);
  return sortExprs(path).map((e) => ({ row: e, pivot: e.split(x).join(pivotX) }));
};

/** Rows strictly after `position` (one value per key, undefined for a missing field) in the
 *  order of `keys`, written over the expressions `termsOf` gives. */
export function afterPositionSql(keys: SortKey[], position: unknown[], p: Params, termsOf: PositionTerms = exprTerms): string {
  const terms: Array<{ row: string; pivot: string; dir: 1 | -1 }> = [];
  keys.forEach((k, i) => {
    const v = position[i];
    const pivotX = v === undefined ? '(NULL::jsonb)' : `(${p.add(JSON.stringify(v), 'jsonb')})`;
    for (const t of termsOf(k.path, pivotX)) terms.push({ ...t, dir: k.dir });
  });
  const after = ({ row, pivot, dir }: (typeof terms)[number]) => (dir === 1
    ? `(${row} > ${pivot} OR (${row} IS NULL AND ${pivot} IS NOT NULL))`
    : `(${row} < ${pivot} OR (${row} IS NOT NULL AND ${pivot} IS NULL))`);
  const same = ({ row, pivot }: (typeof terms)[number]) => `${row} IS NOT DISTINCT FROM ${pivot}`;
  const alternatives = terms.map((t, i) => [...terms.slice(0, i).map(same), after(t)].join(' AND '));
  return `(${alternatives.map((a) => `(${a})`).join(' OR ')})`;
}
