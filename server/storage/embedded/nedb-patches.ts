// Three patches to nedb, applied once by DocStore: two to its indexes, one to its key check.
// 1. Speed, in the index tree (@seald-io/binary-search-tree): removing a document from a key
// that many documents share. nedb rebuilds the key's whole bucket with a JS filter (a new
// array, one callback per document) on every update and delete, so updating a record cost time
// in proportion to how many records share its `role` or `_owner` (≈ 1 ms at 10,000 records).
// The patch finds the document (bucket-positions.ts: by a map in big buckets, else a scan) and
// moves the bucket's last document into its place: same documents under the same keys; only
// their order inside one key changes, which no reader relies on (the query planner orders equal
// keys by the remaining sort keys, then _id).
// Anything else (a whole key removed, a tree with another equality) goes to the original code.
// 2. Bookkeeping, on nedb's Index: how many indexed documents have an array under the indexed
// field (nedb files such a document under each element). The query planner may walk an index
// in order for a sort only while that count is 0; otherwise its order would differ from a sort.
// 3. Safety, in nedb's model: its key check (`checkObject`: no `$` or `.` in field names) visits
// every array's items twice (once as items, once as the array's keys), so its time doubles with
// each level of nested arrays: a record 30 arrays deep stalled the whole server. `patchKeyCheck`
// puts in a check that visits each value once, for inserts and for whole-document replacements
// (the only updates DocStore makes); updates with modifiers still go to nedb's own code.
import model from '@seald-io/nedb/lib/model.js';
import type { NedbIndex } from './nedb-types.js';
import { checkObject } from '../field-names.js';
import { removeFromBucket } from './bucket-positions.js';

export { checkObject };

type IndexProto = {
  _fields: string[];
  arrayDocs?: number;
  insert(doc: unknown): void;
  remove(doc: unknown): void;
  reset(data?: unknown): void;
};

/** Documents of this index whose key is an array (0 when the index never saw one). */
export function arrayDocsOf(index: NedbIndex): number {
  return (index as unknown as IndexProto).arrayDocs ?? 0;
}

export function setArrayDocs(index: NedbIndex, n: number): void {
  (index as unknown as IndexProto).arrayDocs = n;
}

const keyOf = (index: IndexProto, doc: unknown) =>
  index._fields.length === 1 ? model.getDotValue(doc, index._fields[0]) : undefined;

/** Counts array keys on nedb's Index (once per class). */
export function patchArrayCount(index: NedbIndex): void {
  const proto = Object.getPrototypeOf(index) as IndexProto;
  if (patched.has(proto)) return;
  patched.add(proto);
  const { insert, remove, reset } = proto;
  proto.insert = function countingInsert(this: IndexProto, doc: unknown) {
    if (Array.isArray(doc)) { insert.call(this, doc); return; } // nedb calls back per document
    insert.call(this, doc);
    if (Array.isArray(keyOf(this, doc))) this.arrayDocs = (this.arrayDocs ?? 0) + 1;
  };
  proto.remove = function countingRemove(this: IndexProto, doc: unknown) {
    if (Array.isArray(doc)) { remove.call(this, doc); return; }
    remove.call(this, doc);
    if (Array.isArray(keyOf(this, doc))) this.arrayDocs = Math.max(0, (this.arrayDocs ?? 0) - 1);
  };
  proto.reset = function countingReset(this: IndexProto, data?: unknown) {
    this.arrayDocs = 0;
    reset.call(this, data);
  };
}

interface TreeNode {
  key?: unknown;
  data: unknown[];
  left: TreeNode | null;
  right: TreeNode | null;
  compareKeys(a: unknown, b: unknown): number;
  checkValueEquality(a: unknown, b: unknown): boolean;
  delete(key: unknown, value?: unknown): TreeNode | undefined;
}

const patched = new WeakSet<object>();

/** Patches the tree node class of `index` (once per class). */
export function patchBucketDelete(index: NedbIndex): void {
  const root = index.tree.tree as unknown as TreeNode;
  const proto = Object.getPrototypeOf(root) as TreeNode;
  if (patched.has(proto)) return;
  patched.add(proto);
  // nedb's own equality for indexed documents: the same object.
  const identity = (index as unknown as { treeOptions: { checkValueEquality: unknown } }).treeOptions.checkValueEquality;
  const original = proto.delete;
  proto.delete = function patchedDelete(this: TreeNode, key: unknown, value?: unknown) {
    if (value === undefined || this.checkValueEquality !== identity || !Object.prototype.hasOwnProperty.call(this, 'key')) {
      return original.call(this, key, value);
    }
    let node: TreeNode | null = this;
    while (node) {
      const c = node.compareKeys(key, node.key);
      if (c === 0) break;
      node = c < 0 ? node.left : node.right;
    }
    if (!node) return this; // key not found: no change (as the original)
    const data = node.data;
    if (data.length <= 1) return original.call(this, key, value); // the whole key goes
    removeFromBucket(data, value);
    return this;
  };
}

type Model = {
  checkObject(obj: unknown): void;
  modify(obj: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown>;
  deepCopy<T>(obj: T, strictKeys?: boolean): T;
};

let keyCheckPatched = false;

/** Replaces nedb's key check on inserts and whole-document updates (once per process). */
export function patchKeyCheck(): void {
  if (keyCheckPatched) return;
  keyCheckPatched = true;
  const m = model as unknown as Model;
  const originalModify = m.modify;
  m.checkObject = checkObject;
  m.modify = function modify(obj, update) {
    const keys = Object.keys(update);
    if (keys.some((k) => k[0] === '$')) return originalModify(obj, update); // modifiers: nedb's own path
    if (keys.includes('_id') && update._id !== obj._id) throw new Error("You cannot change a document's _id");
    const newDoc = m.deepCopy(update);
    newDoc._id = obj._id;
    checkObject(newDoc);
    return newDoc;
  };
}
