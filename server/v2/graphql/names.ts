// GraphQL names for what the workspace names freely (collection and field ids may hold `-`,
// start with a digit, or clash with the fixed part of the schema). A name is made valid, then
// made unique among the names already taken in its scope by a numeric suffix (`_2`, `_3`...);
// collections are named in their stored order, so the same schema always gets the same names.

const VALID = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** A valid GraphQL name for `raw`: other characters become `_`, a leading digit gets `_`, and
 *  a leading `__` (reserved for introspection) becomes `_`. */
export function graphqlName(raw: string): string {
  let name = raw.replace(/[^_0-9A-Za-z]/g, '_');
  if (!name) name = '_';
  if (/^[0-9]/.test(name)) name = `_${name}`;
  while (name.startsWith('__')) name = name.slice(1);
  return VALID.test(name) ? name : '_';
}

export const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** Names taken in one scope (the type names, the Query fields, one type's fields...). */
export class NameScope {
  private readonly taken = new Set<string>();
  constructor(reserved: Iterable<string> = []) { for (const r of reserved) this.taken.add(r); }
  /** `base`, or `base_2`, `base_3`... whichever is free; it is taken from now on. */
  claim(base: string): string {
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}_${n}`;
    this.taken.add(name);
    return name;
  }
  has(name: string): boolean { return this.taken.has(name); }
}

/** Enum values in GraphQL must be names and not true, false or null. */
export function enumValueName(value: unknown): string | undefined {
  return typeof value === 'string' && VALID.test(value) && !['true', 'false', 'null'].includes(value) ? value : undefined;
}
