// The records filter, three ways: typed text (`age >= 30 and role = admin`), the API's query
// string (`filter[age][$gte]=30&filter[role]=admin`) and a view's object filter
// (`{ age: { $gte: "30" }, role: "admin" }`). All become one list of conditions; values stay
// text, as in a URL, and the server coerces them by the field's type. The operators, the field
// path and the parameter keys are the server's own (server/shared): only the typed-text form is
// the console's.
import { FILTER_OPERATORS as FILTER_OPS, type FilterOp } from '../../../server/shared/query';
import { FIELD_PATH as PATH, FILTER_KEY, filterParamKey } from '../../../server/shared/filter-syntax';

export { FILTER_OPS, type FilterOp };

export interface Condition { field: string; op: FilterOp; value: string }

export const OP_LABELS: Record<FilterOp, { symbol: string; label: string }> = {
  $eq: { symbol: '=', label: 'equals' },
  $ne: { symbol: '!=', label: 'is not' },
  $gt: { symbol: '>', label: 'greater than' },
  $gte: { symbol: '>=', label: 'at least' },
  $lt: { symbol: '<', label: 'less than' },
  $lte: { symbol: '<=', label: 'at most' },
  $in: { symbol: 'in', label: 'one of' },
  $nin: { symbol: 'not in', label: 'none of' },
  $exists: { symbol: 'exists', label: 'exists' },
  $contains: { symbol: 'contains', label: 'contains' },
  $startsWith: { symbol: 'startsWith', label: 'starts with' },
};

export class FilterSyntaxError extends Error {}


/** Words and symbols accepted in typed text, longest first. */
const TEXT_OPS: Array<[RegExp, FilterOp | 'not exists']> = [
  [/^(>=)/, '$gte'], [/^(<=)/, '$lte'], [/^(!=|<>)/, '$ne'], [/^(==?)/, '$eq'], [/^(>)/, '$gt'], [/^(<)/, '$lt'],
  [/^(not\s+in|nin)(?=\s|\(|\[|$)/i, '$nin'], [/^(in)(?=\s|\(|\[|$)/i, '$in'],
  [/^(not\s+exists)(?=\s|$)/i, 'not exists'], [/^(exists)(?=\s|$)/i, '$exists'],
  [/^(contains)(?=\s|$)/i, '$contains'], [/^(starts\s*with)(?=\s|$)/i, '$startsWith'],
  [/^(\$[A-Za-z]+)/, '$eq'], // checked below against FILTER_OPS
];

/** Parses what the user typed: the text form, or the query-string form when it holds `filter[`. */
export function parseFilter(input: string): { conditions: Condition[]; sort?: string } {
  const text = input.trim();
  if (!text) return { conditions: [] };
  if (/(^|[?&])filter\[/.test(text)) return parseQueryString(text);
  return { conditions: splitClauses(text).map(parseClause) };
}

function splitClauses(text: string): string[] {
  const out: string[] = [];
  let quote: string | null = null;
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") { quote = c; continue; }
    if (c === '(' || c === '[') depth++;
    if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
    if (depth) continue;
    const rest = text.slice(i);
    const and = /^(\s+and\s+|\s*&&\s*)/i.exec(rest);
    if (and && (i > start)) {
      out.push(text.slice(start, i));
      i += and[0].length - 1;
      start = i + 1;
      continue;
    }
    if (/^\s+(or|\|\|)\s+/i.test(rest) || rest.startsWith('||')) {
      throw new FilterSyntaxError("Only 'and' can join conditions: the API's filters all have to match");
    }
  }
  if (quote) throw new FilterSyntaxError('A quote is not closed');
  out.push(text.slice(start));
  return out.map((s) => s.trim()).filter((s, i, all) => s || all.length === 1);
}

function parseClause(clause: string): Condition {
  const m = /^([A-Za-z_][A-Za-z0-9_.-]*)\s*(.*)$/s.exec(clause);
  if (!m) throw new FilterSyntaxError(`'${clause}' does not start with a field name`);
  const field = m[1];
  if (!PATH.test(field)) throw new FilterSyntaxError(`'${field}' is not a field path (letters, digits, _ and -, parts joined by dots)`);
  const rest = m[2];
  for (const [re, op] of TEXT_OPS) {
    const om = re.exec(rest);
    if (!om) continue;
    let value = rest.slice(om[0].length).trim();
    if (op === 'not exists') {
      if (value) throw new FilterSyntaxError(`'not exists' takes no value (in '${clause}')`);
      return { field, op: '$exists', value: 'false' };
    }
    let realOp: FilterOp = op;
    if (om[1].startsWith('$')) {
      if (!(FILTER_OPS as readonly string[]).includes(om[1])) {
        throw new FilterSyntaxError(`Unknown operator '${om[1]}'; allowed: ${FILTER_OPS.join(' ')}`);
      }
      realOp = om[1] as FilterOp;
    }
    if (realOp === '$exists') {
      value = value ? unquote(value) : 'true';
      if (value !== 'true' && value !== 'false') throw new FilterSyntaxError(`'exists' takes true or false, not '${value}'`);
      return { field, op: realOp, value };
    }
    if (!value) throw new FilterSyntaxError(`'${clause}' needs a value after '${om[1]}'`);
    if (realOp === '$in' || realOp === '$nin') return { field, op: realOp, value: parseList(value).join(',') };
    return { field, op: realOp, value: unquote(value) };
  }
  throw new FilterSyntaxError(rest.trim()
    ? `Unknown operator in '${clause}'; use = != > >= < <= in, not in, exists, contains, startsWith`
    : `'${clause}' needs an operator and a value, as in ${field} = value`);
}

function parseList(value: string): string[] {
  let v = value.trim();
  if ((v.startsWith('(') && v.endsWith(')')) || (v.startsWith('[') && v.endsWith(']'))) v = v.slice(1, -1);
  const items: string[] = [];
  let cur = '';
  let quote: string | null = null;
  for (let i = 0; i < v.length; i++) {
    const c = v[i];
    if (quote) {
      if (c === '\\' && i + 1 < v.length) { cur += c + v[++i]; continue; }
      if (c === quote) quote = null;
      cur += c;
    } else if (c === '"' || c === "'") { quote = c; cur += c; }
    else if (c === ',') { items.push(cur); cur = ''; }
    else cur += c;
  }
  items.push(cur);
  const out = items.map((s) => unquote(s.trim()));
  if (out.some((s) => s.includes(','))) throw new FilterSyntaxError('A value of an in-list cannot hold a comma (the API splits lists at commas)');
  if (out.every((s) => s === '')) throw new FilterSyntaxError('The list is empty');
  return out;
}

function unquote(v: string): string {
  const t = v.trim();
  if (t.length >= 2 && (t[0] === '"' || t[0] === "'") && t[t.length - 1] === t[0]) {
    return t.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  if (/^["']/.test(t)) throw new FilterSyntaxError(`A quote is not closed in ${t}`);
  return t;
}

function parseQueryString(text: string): { conditions: Condition[]; sort?: string } {
  const qs = text.includes('?') ? text.slice(text.indexOf('?') + 1) : text;
  const params = new URLSearchParams(qs);
  const conditions: Condition[] = [];
  let sort: string | undefined;
  for (const [key, value] of params) {
    if (key === 'sort') { sort = value; continue; }
    if (!key.startsWith('filter')) continue; // limit, offset, page...: not part of a filter
    const m = FILTER_KEY.exec(key);
    if (!m) throw new FilterSyntaxError(`Malformed parameter '${key}'; use filter[field]=value or filter[field][$op]=value`);
    const [, field, op = '$eq'] = m;
    if (!PATH.test(field)) throw new FilterSyntaxError(`'${field}' is not a field path`);
    if (!(FILTER_OPS as readonly string[]).includes(op)) throw new FilterSyntaxError(`Unknown operator '${op}'; allowed: ${FILTER_OPS.join(' ')}`);
    conditions.push({ field, op: op as FilterOp, value });
  }
  return { conditions, sort };
}

function quoteIfNeeded(v: string): string {
  if (v === '' || /[\s"'(),[\]&|]/.test(v) || /^(and|or)$/i.test(v)) return `"${v.replace(/(["\\])/g, '\\$1')}"`;
  return v;
}

/** The typed-text form of conditions (what the filter bar shows). */
export function conditionsToText(conditions: Condition[]): string {
  return conditions.map(({ field, op, value }) => {
    if (op === '$exists') return value === 'false' ? `${field} not exists` : `${field} exists`;
    if (op === '$in' || op === '$nin') return `${field} ${OP_LABELS[op].symbol} (${value.split(',').map(quoteIfNeeded).join(', ')})`;
    return `${field} ${OP_LABELS[op].symbol} ${quoteIfNeeded(value)}`;
  }).join(' and ');
}

/** The query-string keys the API takes (`filter[age][$gte]=30`). Refuses a field given twice
 *  with the same operator, which the API would refuse too. */
export function conditionsToParams(conditions: Condition[]): Array<[string, string]> {
  const seen = new Set<string>();
  return conditions.map(({ field, op, value }) => {
    const key = filterParamKey(field, op);
    const id = `${field} ${op}`;
    if (seen.has(id)) throw new FilterSyntaxError(`'${field}' has two conditions with ${OP_LABELS[op].symbol}; keep one`);
    seen.add(id);
    return [key, value];
  });
}

export function conditionsFromParams(params: URLSearchParams): Condition[] {
  try {
    return parseQueryString(params.toString()).conditions;
  } catch {
    return [];
  }
}

/** A view's stored filter from conditions (`$in` lists as arrays). */
export function conditionsToViewFilter(conditions: Condition[]): Record<string, unknown> {
  conditionsToParams(conditions); // same duplicate check
  const out: Record<string, Record<string, unknown>> = {};
  for (const { field, op, value } of conditions) {
    const v = op === '$in' || op === '$nin' ? value.split(',') : op === '$exists' ? value !== 'false' : value;
    (out[field] ??= {})[op] = v;
  }
  return out;
}

export function conditionsFromViewFilter(filter: Record<string, unknown> | undefined): Condition[] {
  const out: Condition[] = [];
  for (const [field, value] of Object.entries(filter ?? {})) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).every((k) => k.startsWith('$'))) {
      for (const [op, v] of Object.entries(value)) {
        if ((FILTER_OPS as readonly string[]).includes(op)) out.push({ field, op: op as FilterOp, value: Array.isArray(v) ? v.join(',') : String(v) });
      }
    } else {
      out.push({ field, op: '$eq', value: value === null ? 'null' : typeof value === 'object' ? JSON.stringify(value) : String(value) });
    }
  }
  return out;
}
