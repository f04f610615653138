// The syntax of a list's filter parameters, as the server parses them and the console writes
// them: `filter[path]=value` (equality) or `filter[path][$op]=value`, with the operators of
// FILTER_OPERATORS (query.ts). Browser-safe.

/** A field path: letters, digits, `_` and `-`, not starting with a digit or `-`; parts joined
 *  by dots (`address.city`). */
export const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;

/** A filter parameter's key: the path, and the operator when one is given. */
export const FILTER_KEY = /^filter\[([^\][]+)\](?:\[([^\][]+)\])?$/;

/** The parameter key of a condition: `filter[path]` for equality, `filter[path][$op]` otherwise. */
export function filterParamKey(path: string, op: string): string {
  return op === '$eq' ? `filter[${path}]` : `filter[${path}][${op}]`;
}
