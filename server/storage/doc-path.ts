// Reading a document's value at a dot path, the way every query of both drivers reads it.
const hasOwn = Object.prototype.hasOwnProperty;

/** A document's value at a dot path, reading own properties only (a field named `toString` is
 *  not Object.prototype's); arrays are reached by index or mapped over, as nedb's getDotValue does. */
export function getPath(doc: unknown, path: string): unknown {
  if (path.indexOf('.') === -1) return doc !== null && typeof doc === 'object' && hasOwn.call(doc, path) ? (doc as Record<string, unknown>)[path] : undefined;
  return walk(doc, path.split('.'), 0);
}

function walk(value: unknown, parts: string[], i: number): unknown {
  if (i === parts.length) return value;
  if (value === null || typeof value !== 'object' || !hasOwn.call(value, parts[i])) return undefined;
  const next = (value as Record<string, unknown>)[parts[i]];
  if (Array.isArray(next) && i + 1 < parts.length) {
    const index = Number.parseInt(parts[i + 1], 10);
    return Number.isNaN(index) ? next.map((el) => walk(el, parts, i + 1)) : walk(next[index], parts, i + 2);
  }
  return walk(next, parts, i + 1);
}
