// Projection: a document with only some of its fields, in its own shape.
import type { Doc } from '../shared/query.js';

const hasOwn = Object.prototype.hasOwnProperty;


/** A projection mask: for each key, `true` (the whole value) or the mask of its sub-paths. */
type Mask = Map<string, Mask | true>;
const masks = new WeakMap<string[], Mask>();

function maskOf(fields: string[]): Mask {
  let mask = masks.get(fields);
  if (mask) return mask;
  mask = new Map();
  for (const f of fields) {
    const parts = f.split('.');
    let level = mask;
    for (let i = 0; i < parts.length; i++) {
      const have = level.get(parts[i]);
      if (have === true) break; // a shorter path already takes the whole value
      if (i === parts.length - 1) { level.set(parts[i], true); break; }
      const next: Mask = have ?? new Map();
      level.set(parts[i], next);
      level = next;
    }
  }
  masks.set(fields, mask);
  return mask;
}

/** The document with only `fields` (dot paths) and `_id`, in the document's own shape: an array
 *  of objects keeps being an array (`items.name` → `items: [{ name: "a" }, { name: "b" }]`; an
 *  element without the key is `{}`, a non-object element is left out); a numeric segment after
 *  an array (`items.1.name`) keeps only the elements named so. Reads own properties only. */
export function project(doc: Doc, fields: string[]): Doc {
  const out = pickObject(doc, maskOf(fields)) ?? {};
  return { _id: doc._id, ...out } as Doc;
}

function pick(value: unknown, mask: Mask | true): unknown {
  if (mask === true) return value;
  if (Array.isArray(value)) return pickArray(value, mask);
  if (value !== null && typeof value === 'object') return pickObject(value as Record<string, unknown>, mask);
  return undefined;
}

function pickObject(obj: Record<string, unknown>, mask: Mask): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const [key, sub] of mask) {
    if (!hasOwn.call(obj, key)) continue;
    const v = pick(obj[key], sub);
    if (v === undefined) continue;
    (out ??= {})[key] = v;
  }
  return out;
}

function mergeMasks(a: Mask, b: Mask): Mask {
  const out: Mask = new Map(a);
  for (const [key, sub] of b) {
    const have = out.get(key);
    out.set(key, have === undefined ? sub : have === true || sub === true ? true : mergeMasks(have, sub));
  }
  return out;
}

function pickArray(arr: unknown[], mask: Mask): unknown[] {
  // Named elements (numeric segments), and what every element keeps (the other segments).
  let every: Mask | undefined;
  let named: Map<number, Mask | true> | undefined;
  for (const [key, sub] of mask) {
    if (/^\d+$/.test(key)) (named ??= new Map()).set(Number(key), sub);
    else (every ??= new Map()).set(key, sub);
  }
  const out: unknown[] = [];
  for (let i = 0; i < arr.length; i++) {
    const own = named?.get(i);
    if (!every && own === undefined) continue;
    const el = arr[i];
    if (own === true) { out.push(el); continue; }
    const elMask = own && every ? mergeMasks(every, own) : (own ?? every)!;
    if (Array.isArray(el)) { out.push(pickArray(el, elMask)); continue; }
    if (el === null || typeof el !== 'object') continue;
    out.push(pickObject(el as Record<string, unknown>, elMask) ?? {});
  }
  return out;
}
