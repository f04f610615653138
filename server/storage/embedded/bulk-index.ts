// Builds a nedb index over many documents at once: sort the keys, group equal ones, and link a
// perfectly balanced AVL tree (the tree nedb's own inserts and deletes keep working on). nedb's
// Index.reset inserts one document at a time with a rotation check each (≈ 0.9 s for 100,000
// random ids); this takes a sort (≈ 0.1 s). Same result: same keys, same buckets in the same
// order (documents in insertion order within a key), same unique-violation error.
import model from '@seald-io/nedb/lib/model.js';
import type { NedbIndex } from './nedb-types.js';
import { setArrayDocs } from './nedb-patches.js';

type Keyed = { key: unknown; doc: Record<string, unknown> };

const isDate = (d: unknown) => d !== null && typeof d === 'object' && Object.prototype.toString.call(d) === '[object Date]';

/** The same projection nedb uses to de-duplicate the elements of an array-valued key. */
function projectForUnique(elt: unknown): unknown {
  if (elt === null) return '$null';
  if (typeof elt === 'string') return '$string' + elt;
  if (typeof elt === 'boolean') return '$boolean' + elt;
  if (typeof elt === 'number') return '$number' + elt;
  if (isDate(elt)) return '$date' + (elt as Date).getTime();
  return elt;
}

const compareNSB = (a: any, b: any) => (a < b ? -1 : a > b ? 1 : 0);

function uniqueViolation(key: unknown): Error {
  const err = new Error(`Can't insert key ${JSON.stringify(key)}, it violates the unique constraint`) as Error & { key: unknown; errorType: string };
  err.key = key;
  err.errorType = 'uniqueViolated';
  return err;
}

/** Replaces `index`'s content with `docs`, like `index.reset(docs)`. Throws (leaving the index
 *  untouched) on a unique violation. Compound indexes fall back to nedb's own reset. */
export function bulkResetIndex(index: NedbIndex, docs: Record<string, unknown>[]): void {
  if (index._fields.length !== 1) { index.reset(docs); return; }
  const field = index._fields[0];
  const simple = field.indexOf('.') === -1;
  // Group documents by key. Primitive keys group in a Map (SameValueZero equals compareThings'
  // equality for them); anything else (dates, objects, arrays' elements) takes the generic path.
  const groups = new Map<unknown, Record<string, unknown>[]>();
  const others: Keyed[] = [];
  let kinds = 0; // bit set of the primitive key types seen
  const add = (key: unknown, doc: Record<string, unknown>) => {
    const t = typeof key;
    if (key === null || t === 'string' || t === 'number' || t === 'boolean' || t === 'undefined') {
      kinds |= t === 'string' ? 1 : t === 'number' ? 2 : 4;
      const bucket = groups.get(key);
      if (bucket === undefined) groups.set(key, [doc]);
      else if (index.unique) throw uniqueViolation(key);
      else bucket.push(doc);
    } else {
      others.push({ key, doc });
    }
  };
  let arrayDocs = 0;
  for (const doc of docs) {
    const key = simple ? doc[field] : model.getDotValue(doc, field);
    if (index.sparse && (key === undefined || (typeof key === 'object' && key !== null && Object.values(key).every((e) => e === undefined)))) continue;
    if (!Array.isArray(key)) { add(key, doc); continue; }
    arrayDocs++;
    const keys = [...new Map(key.map((x) => [projectForUnique(x), x])).values()];
    for (const k of keys) add(k, doc);
  }

  let keys: unknown[];
  let buckets: Record<string, unknown>[][];
  if (others.length === 0 && (kinds === 1 || kinds === 2)) {
    // One primitive type: the default string sort (UTF-16 code units, as `<`) or a numeric one.
    keys = [...groups.keys()];
    if (kinds === 1) keys.sort(); else keys.sort((a, b) => compareNSB(a, b));
    buckets = keys.map((k) => groups.get(k)!);
  } else {
    const entries: Keyed[] = [];
    for (const [key, bucket] of groups) for (const doc of bucket) entries.push({ key, doc });
    for (const e of others) entries.push(e);
    entries.sort((a, b) => model.compareThings(a.key, b.key)); // stable: insertion order within a key
    keys = [];
    buckets = [];
    for (const e of entries) {
      if (keys.length && model.compareThings(keys[keys.length - 1], e.key) === 0) {
        if (index.unique) throw uniqueViolation(e.key);
        buckets[buckets.length - 1].push(e.doc);
      } else {
        keys.push(e.key);
        buckets.push([e.doc]);
      }
    }
  }

  const Tree = index.tree.constructor as new (o: unknown) => NedbIndex['tree'];
  const fresh = new Tree((index as unknown as { treeOptions: unknown }).treeOptions);
  if (keys.length) {
    const root = fresh.tree as unknown as Record<string, unknown>;
    const proto = Object.getPrototypeOf(root) as object;
    const { unique, compareKeys, checkValueEquality } = root;
    // A node per key, the median as root: heights of siblings differ by at most one (AVL).
    // Nodes get the fields nedb's node constructor sets (that constructor is 5× slower).
    const build = (lo: number, hi: number, parent: unknown): Record<string, unknown> | null => {
      if (lo > hi) return null;
      const mid = (lo + hi) >>> 1;
      const node = Object.create(proto) as Record<string, unknown>;
      node.left = null;
      node.right = null;
      node.parent = parent;
      node.key = keys[mid];
      node.data = buckets[mid];
      node.unique = unique;
      node.compareKeys = compareKeys;
      node.checkValueEquality = checkValueEquality;
      const left = build(lo, mid - 1, node);
      const right = build(mid + 1, hi, node);
      node.left = left;
      node.right = right;
      node.height = 1 + Math.max((left?.height as number) ?? 0, (right?.height as number) ?? 0);
      return node;
    };
    (fresh as unknown as { tree: unknown }).tree = build(0, keys.length - 1, null);
  }
  (index as unknown as { tree: unknown }).tree = fresh;
  setArrayDocs(index, arrayDocs);
}

/** Makes `index` a copy of `source` (an index on the same field of a store holding the same
 *  documents): the tree's shape is copied node by node, with no key compared (a fork's stores
 *  take their indexes this way; far cheaper than sorting the keys again). The documents are
 *  shared; the nodes and their buckets are new, so that later writes to either index leave the
 *  other alone. */
export function cloneIndex(index: NedbIndex, source: NedbIndex): void {
  const Tree = index.tree.constructor as new (o: unknown) => NedbIndex['tree'];
  const fresh = new Tree((index as unknown as { treeOptions: unknown }).treeOptions);
  const from = source.tree.tree as unknown as Record<string, unknown>;
  if (Object.prototype.hasOwnProperty.call(from, 'key')) {
    const proto = Object.getPrototypeOf(from) as object;
    const copy = (n: Record<string, unknown> | null, parent: unknown): Record<string, unknown> | null => {
      if (!n) return null;
      const node = Object.create(proto) as Record<string, unknown>;
      node.left = null;
      node.right = null;
      node.parent = parent;
      node.key = n.key;
      node.data = (n.data as unknown[]).slice();
      node.unique = n.unique;
      node.compareKeys = n.compareKeys;
      node.checkValueEquality = n.checkValueEquality;
      node.left = copy(n.left as Record<string, unknown> | null, node);
      node.right = copy(n.right as Record<string, unknown> | null, node);
      node.height = n.height;
      return node;
    };
    (fresh as unknown as { tree: unknown }).tree = copy(from, null);
  }
  (index as unknown as { tree: unknown }).tree = fresh;
  setArrayDocs(index, (source as unknown as { arrayDocs?: number }).arrayDocs ?? 0);
}
