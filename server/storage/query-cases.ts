// The one table of list and filter cases that every storage driver must answer alike (run by
// drivers.test.ts against the embedded stores and PostgreSQL): query strings as a client sends
// them, parsed by the one list-query parser (coercion by the schema type included), with the
// ids and total they must give. Beside it, random documents and queries checked against the
// reference ("filter everything, sort everything, slice") built from the query helpers of query.ts.
import { compileMatcher, comparator, DEFAULT_SORT, project, FILTER_OPERATORS, type Condition, type Doc, type StoreQuery } from './query.js';
import type { FieldType } from '../shared/models.js';

const at = (i: number) => new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString();

/** Schemaless documents of mixed types. */
export const LOOSE_DOCS: Doc[] = [
  { _id: 'a', createdAt: at(1), name: 'Ann', age: 31, role: 'admin', active: true, tags: ['x', 'y'], profile: { city: 'Oslo', zip: '0150' }, note: null, when: '2024-03-01T10:00:00Z' },
  { _id: 'b', createdAt: at(2), name: 'Bob', age: '25', role: 'user', active: 'true', tags: ['y'], profile: { city: 'Bergen' }, when: '2024-03-01T11:30:00+02:00' },
  { _id: 'c', createdAt: at(3), name: 'Cid', age: 25, role: 'user', active: false, profile: { city: 'oslo' }, when: '2024-03-01 10:30' },
  { _id: 'd', createdAt: at(4), name: 'dora', age: 40, role: 'admin', tags: [], note: 'null', when: '2024-02-29' },
  { _id: 'e', createdAt: at(5), name: 'Élise', age: 2.5, items: [{ name: 'pen', qty: 2 }, { name: 'Ink', qty: 10 }, 'loose'], score: [3, 9] },
  { _id: 'f', createdAt: at(0), name: 'ÉMILE', items: [{ qty: 1 }], matrix: [[1, 2], [3]], score: [12] },
];

/** Field types of the typed collection (the same documents, read through a schema). */
export const TYPES: Record<string, FieldType> = { age: 'number', code: 'string', ok: 'boolean', at: 'date' };
export const TYPED_DOCS: Doc[] = [
  { _id: 'p', createdAt: at(1), age: 25, code: '25', ok: true, at: '2024-03-01T10:00:00Z' },
  { _id: 'q', createdAt: at(2), age: 30, code: '030', ok: false, at: '2024-03-01T11:30:00+02:00' },
  { _id: 'r', createdAt: at(3), age: 7, code: 'true', ok: true, at: '2024-03' },
];

export interface ListCase {
  /** The query string of GET /database/{collection}?... */
  q: string;
  typed?: boolean;
  /** Ids in the answer's order (sort=_id is added when the case gives no sort). */
  ids: string[];
  /** meta.total when it differs from ids.length. */
  total?: number;
  /** The exact page, when fields= is the point. */
  data?: Doc[];
}

export const LIST_CASES: ListCase[] = [
  // equality, coerced (schemaless: `25` matches 25 and "25"), dot paths, arrays
  { q: 'filter[role]=admin', ids: ['a', 'd'] },
  { q: 'filter[role][$eq]=admin', ids: ['a', 'd'] },
  { q: 'filter[role][$ne]=admin', ids: ['b', 'c', 'e', 'f'] },
  { q: 'filter[age]=25', ids: ['b', 'c'] },
  { q: 'filter[age]=2.5', ids: ['e'] },
  { q: 'filter[active]=true', ids: ['a', 'b'] },
  { q: 'filter[note]=null', ids: ['a', 'd'] },
  { q: 'filter[tags]=y', ids: ['a', 'b'] },
  { q: 'filter[missing]=1', ids: [] },
  { q: 'filter[profile.city]=Oslo', ids: ['a'] },
  { q: 'filter[items.name]=pen', ids: ['e'] },
  { q: 'filter[items.1.qty]=10', ids: ['e'] },
  { q: 'filter[matrix]=3', ids: ['f'] },
  { q: 'filter[score]=12', ids: ['f'] },
  // $in / $nin
  { q: 'filter[name][$in]=Ann,Cid', ids: ['a', 'c'] },
  { q: 'filter[name][$nin]=Ann,Cid', ids: ['b', 'd', 'e', 'f'] },
  { q: 'filter[age][$in]=25,40', ids: ['b', 'c', 'd'] },
  { q: 'filter[tags][$nin]=x', ids: ['b', 'c', 'd', 'e', 'f'] },
  // ranges: numbers, numeric strings (never as text), arrays, ISO dates
  { q: 'filter[age][$gte]=31', ids: ['a', 'd'] },
  { q: 'filter[age][$gt]=31', ids: ['d'] },
  { q: 'filter[age][$lte]=25', ids: ['b', 'c', 'e'] },
  { q: 'filter[age][$lt]=31', ids: ['b', 'c', 'e'] },
  { q: 'filter[age][$gte]=100', ids: [] },
  { q: 'filter[age][$gt]=3', ids: ['a', 'b', 'c', 'd'] },
  { q: 'filter[profile.zip][$gt]=149', ids: ['a'] },
  { q: 'filter[score][$gt]=10', ids: ['f'] },
  { q: 'filter[score][$lt]=5', ids: ['e'] },
  { q: 'filter[name][$gte]=a', ids: ['d', 'e', 'f'] },
  { q: 'filter[name][$lt]=C', ids: ['a', 'b'] },
  { q: 'filter[when][$gte]=2024-03-01T10:00:00Z', ids: ['a', 'c'] },
  { q: 'filter[when][$lt]=2024-03-01T12:00:00%2B02:00', ids: ['b', 'd'] },
  { q: 'filter[when][$gte]=2024-03-01', ids: ['a', 'b', 'c'] },
  { q: 'filter[age][$gte]=25&filter[age][$lt]=40', ids: ['a', 'b', 'c'] },
  { q: 'filter[role]=admin&filter[age][$gte]=35', ids: ['d'] },
  // $exists, $contains (case-insensitive text, or an array element), $startsWith
  { q: 'filter[tags][$exists]=true', ids: ['a', 'b', 'd'] },
  { q: 'filter[tags][$exists]=false', ids: ['c', 'e', 'f'] },
  { q: 'filter[profile.zip][$exists]=true', ids: ['a'] },
  { q: 'filter[items.name][$exists]=true', ids: ['e', 'f'] },
  { q: 'filter[name][$contains]=o', ids: ['b', 'd'] },
  { q: 'filter[name][$contains]=LI', ids: ['e'] },
  { q: 'filter[name][$contains]=élis', ids: ['e'] },
  { q: 'filter[tags][$contains]=x', ids: ['a'] },
  { q: 'filter[score][$contains]=9', ids: ['e'] },
  { q: 'filter[name][$startsWith]=d', ids: ['d'] },
  { q: 'filter[name][$startsWith]=ém', ids: ['f'] },
  { q: 'filter[profile.city][$startsWith]=oslo', ids: ['a', 'c'] },
  // typed: coercion follows the schema
  { q: 'filter[age]=25', typed: true, ids: ['p'] },
  { q: 'filter[age][$gt]=8&sort=age', typed: true, ids: ['p', 'q'] },
  { q: 'filter[age][$in]=7,30&sort=age', typed: true, ids: ['r', 'q'] },
  { q: 'filter[code]=25', typed: true, ids: ['p'] },
  { q: 'filter[code]=030', typed: true, ids: ['q'] },
  { q: 'filter[code]=true', typed: true, ids: ['r'] },
  { q: 'filter[ok]=true', typed: true, ids: ['p', 'r'] },
  { q: 'filter[ok]=false', typed: true, ids: ['q'] },
  { q: 'filter[at][$gte]=2024-03-01T10:00:00Z', typed: true, ids: ['p'] },
  { q: 'filter[at][$gte]=2024-03', typed: true, ids: ['p', 'q', 'r'] },
  { q: 'filter[createdAt][$gte]=2000-01-01', typed: true, ids: ['p', 'q', 'r'] },
  // sort (mixed types in nedb's order: missing, null, numbers, strings, booleans, arrays), pages
  { q: '', ids: ['f', 'a', 'b', 'c', 'd', 'e'] },
  { q: 'sort=name', ids: ['a', 'b', 'c', 'd', 'f', 'e'] },
  { q: 'sort=-_id', ids: ['f', 'e', 'd', 'c', 'b', 'a'] },
  { q: 'sort=role,-name', ids: ['e', 'f', 'd', 'a', 'c', 'b'] },
  { q: 'sort=age', ids: ['f', 'e', 'c', 'a', 'd', 'b'] },
  { q: 'sort=-age', ids: ['b', 'd', 'a', 'c', 'e', 'f'] },
  { q: 'sort=active', ids: ['d', 'e', 'f', 'b', 'c', 'a'] },
  { q: 'sort=note,_id', ids: ['b', 'c', 'e', 'f', 'a', 'd'] },
  { q: 'sort=tags', ids: ['c', 'e', 'f', 'd', 'a', 'b'] },
  { q: 'sort=score', ids: ['a', 'b', 'c', 'd', 'e', 'f'] },
  { q: 'sort=profile.city', ids: ['d', 'e', 'f', 'b', 'a', 'c'] },
  { q: 'sort=-createdAt&limit=2', ids: ['e', 'd'], total: 6 },
  { q: 'sort=_id&limit=2&offset=3', ids: ['d', 'e'], total: 6 },
  { q: 'limit=0', ids: [], total: 6 },
  { q: 'offset=50', ids: [], total: 6 },
  { q: 'filter[age][$gte]=25&limit=1&sort=-age', ids: ['b'], total: 4 },
  // fields=
  { q: 'fields=name,profile.city&sort=_id&limit=2', ids: ['a', 'b'], total: 6, data: [{ _id: 'a', name: 'Ann', profile: { city: 'Oslo' } }, { _id: 'b', name: 'Bob', profile: { city: 'Bergen' } }] },
  { q: 'fields=items.name&filter[_id]=e', ids: ['e'], data: [{ _id: 'e', items: [{ name: 'pen' }, { name: 'Ink' }] }] },
];

/** Views: a stored object filter and sort, applied as GET ?view= applies them. */
export const VIEW_CASES: Array<{ filter: Record<string, unknown>; sort: string; ids: string[] }> = [
  { filter: { role: 'admin', age: { $gte: 35 } }, sort: '-age', ids: ['d'] },
  { filter: { age: { $in: [25, 40] } }, sort: 'age', ids: ['c', 'd'] },
  { filter: { 'profile.city': { $startsWith: 'O' } }, sort: '-_id', ids: ['c', 'a'] },
  { filter: { tags: { $exists: false }, age: { $lt: 30 } }, sort: 'name', ids: ['c', 'e'] },
];

// ---- random documents and queries -------------------------------------------------------

export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ROLES = ['admin', 'editor', 'user', 'guest', 'Admin', '25'];
const TAGS = ['red', 'green', 'blue'];
export const FIELDS = ['role', 'age', 'score', 'active', 'nested.x', 'tags', 'mixed'];

export function makeDoc(rand: () => number, i: number, withArrays: boolean): Doc {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const doc: Doc = { _id: `d${String(i).padStart(5, '0')}${Math.floor(rand() * 1000)}`, createdAt: new Date(Date.UTC(2024, 0, 1) + Math.floor(rand() * 1e6) * 1000).toISOString() };
  if (rand() < 0.9) doc.role = pick(ROLES);
  if (rand() < 0.85) doc.age = rand() < 0.1 ? null : 18 + Math.floor(rand() * 40);
  if (rand() < 0.8) doc.score = Math.round(rand() * 1000) / 10;
  if (rand() < 0.8) doc.active = rand() < 0.5;
  if (rand() < 0.7) doc.nested = { x: Math.floor(rand() * 10), y: pick(TAGS) };
  if (withArrays && rand() < 0.6) doc.tags = TAGS.filter(() => rand() < 0.5);
  if (rand() < 0.7) doc.mixed = pick<unknown>([1, 2, '1', '2', true, null, 'x', 2.5, ...(withArrays ? [[1, 2], ['x']] : [])]);
  return doc;
}

function randomValue(rand: () => number, path: string): unknown {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  switch (path) {
    case 'role': return pick([...ROLES, 25, 'nobody']);
    case 'age': return pick([18, 25, 30, 40, 57, null, '25', 99]);
    case 'score': return pick([0, 10.5, 50, 99.9]);
    case 'active': return pick([true, false, 'true']);
    case 'nested.x': return pick([0, 3, 5, 9, '5']);
    case 'tags': return pick([...TAGS, 'none']);
    default: return pick([1, 2, '1', true, null, 'x', 2.5]);
  }
}

export function randomQuery(rand: () => number): StoreQuery {
  const conditions: Condition[] = [];
  const n = Math.floor(rand() * 3);
  for (let i = 0; i < n; i++) {
    const path = FIELDS[Math.floor(rand() * FIELDS.length)];
    const op = rand() < 0.5 ? '$eq' : FILTER_OPERATORS[Math.floor(rand() * FILTER_OPERATORS.length)];
    const count = op === '$in' || op === '$nin' ? 1 + Math.floor(rand() * 3) : rand() < 0.3 ? 2 : 1;
    const values = op === '$exists' ? [rand() < 0.5] : Array.from({ length: count }, () => randomValue(rand, path));
    conditions.push({ path, op, values });
  }
  const sort = Array.from({ length: Math.floor(rand() * 3) }, () => ({ path: FIELDS[Math.floor(rand() * FIELDS.length)], dir: (rand() < 0.5 ? 1 : -1) as 1 | -1 }));
  const limit = [0, 1, 5, 20, 50, 100][Math.floor(rand() * 6)];
  const offset = [0, 0, 3, 40][Math.floor(rand() * 4)];
  return { conditions, sort, limit, offset, ...(rand() < 0.2 ? { fields: ['role', 'nested.x'] } : {}) };
}

/** What a list must answer: every match, fully sorted, sliced. */
export function reference(docs: Doc[], q: StoreQuery) {
  const match = compileMatcher(q.conditions);
  const all = docs.filter(match).sort(comparator(q.sort.length ? q.sort : DEFAULT_SORT));
  const page = all.slice(q.offset, q.offset + q.limit);
  return { data: q.fields ? page.map((d) => project(d, q.fields!)) : page, total: all.length };
}
