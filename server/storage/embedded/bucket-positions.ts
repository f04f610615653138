// Taking one document out of a bucket of an index tree (the documents that share one key).
// Every update and delete takes the old version out of the bucket of its key in every index,
// also when the key did not change. Found by a scan, that cost time in proportion to the bucket:
// at 100,000 records, the `_owner` index holds them all under one key when an admin created them
// and `role` 25,000 under each value, so a scan of up to 100,000 entries was a fifth of a
// partial update's CPU time.
//
// A big bucket (BIG_BUCKET documents or more) gets a map from each document to its place, made
// at its first removal, and kept up to date by the removals themselves (the last document moves
// into the removed one's place: the order inside one key is not relied on, see
// nedb-patches.ts); documents pushed onto the bucket since (nedb's inserts) are added to the map
// at the next removal. The map is only a hint: a place is used only if the bucket holds that
// document there, and a bucket changed by other code (or holding a document twice) is scanned.
// The maps live beside the bucket arrays (a WeakMap), so they follow a bucket that the tree's
// rebalancing moves to another node, and go with it.

/** Buckets below this size are scanned (a scan of 4,096 entries is a microsecond or two): a map
 *  costs memory, about 30 bytes a document, and at 256 the `age` index's buckets of ~1,600 records
 *  each had maps too, ~5 MB more at 100,000 records for a saving of about a microsecond a write. */
export const BIG_BUCKET = 4096;

interface Places {
  of: Map<unknown, number>;
  /** The bucket's entries before this index are in `of`. */
  covered: number;
}

/** null: this bucket holds a document twice; it is always scanned. */
const places = new WeakMap<unknown[], Places | null>();

/** Takes every occurrence of `value` out of `data`, each replaced by the bucket's last entry. */
export function removeFromBucket(data: unknown[], value: unknown): void {
  if (data.length < BIG_BUCKET) { removeByScan(data, value); return; }
  const p = placesOf(data);
  if (!p) { removeByScan(data, value); return; }
  const i = p.of.get(value);
  if (i === undefined || data[i] !== value) {
    // Not where the map says (or not in it): absent, or the bucket was changed elsewhere.
    if (removeByScan(data, value)) places.delete(data); // made again at the next removal
    else p.covered = Math.min(p.covered, data.length);
    return;
  }
  p.of.delete(value);
  const last = data.pop();
  if (i < data.length) {
    data[i] = last;
    if (i < p.covered) p.of.set(last, i);
  }
  p.covered = Math.min(p.covered, data.length);
}

/** The bucket's map, brought up to date with the entries pushed since its last use; null when
 *  the bucket must be scanned. */
function placesOf(data: unknown[]): Places | null {
  let p = places.get(data);
  if (p === null) return null;
  if (!p) { p = { of: new Map(), covered: 0 }; places.set(data, p); }
  for (let j = p.covered; j < data.length; j++) {
    const v = data[j];
    const k = p.of.get(v);
    if (k !== undefined && k !== j && data[k] === v) { places.set(data, null); return null; }
    p.of.set(v, j);
  }
  p.covered = data.length;
  return p;
}

/** The scan: true when `value` was there. */
function removeByScan(data: unknown[], value: unknown): boolean {
  let i = data.indexOf(value);
  const found = i !== -1;
  while (i !== -1) {
    const last = data.pop();
    if (i < data.length) data[i] = last;
    i = data.indexOf(value, i);
  }
  return found;
}
