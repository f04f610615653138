// Step templates: `{{event.data.x}}`, `{{steps.0.output.body.id}}`, `{{secrets.NAME}}`, resolved
// by a plain path lookup over own properties (never eval, Function or vm), and the masking that
// replaces every secret value by `***` in what an execution stores.

import { domainToASCII } from 'node:url';

const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const PATH = /^(event|steps|secrets)(?:\.[A-Za-z0-9_-]+)+$/;

export interface TemplateContext {
  event: unknown;
  steps: Array<{ output: unknown; status: string }>;
  secrets: Map<string, string>;
}

/** A template expression that cannot be used; the message says why. */
export class TemplateError extends Error {}

/** Every template expression in a value (strings, nested in objects and arrays). */
export function templateExpressions(value: unknown): string[] {
  const out: string[] = [];
  walkStrings(value, (s) => { for (const m of s.matchAll(TEMPLATE)) out.push(m[1]); });
  return out;
}

/** Why an expression is not valid at step `stepIndex` (undefined if it is fine). */
export function checkExpression(expr: string, stepIndex: number, secretNames: Set<string>): string | undefined {
  if (!PATH.test(expr)) return `'{{${expr}}}' is not a template: use {{event.…}}, {{steps.N.output.…}} or {{secrets.NAME}}`;
  const parts = expr.split('.');
  if (parts[0] === 'secrets') {
    if (parts.length !== 2) return `'{{${expr}}}': a secret is referenced as {{secrets.NAME}}`;
    if (!secretNames.has(parts[1])) return `'{{${expr}}}' references an unknown secret '${parts[1]}'`;
  }
  if (parts[0] === 'steps') {
    const n = Number(parts[1]);
    if (!/^\d+$/.test(parts[1]) || n >= stepIndex) return `'{{${expr}}}' must reference an earlier step (0 to ${stepIndex - 1})`;
  }
  return undefined;
}

/** Resolves the templates in a value. A string that is exactly one template takes the value
 *  itself (an object stays an object); templates inside longer text are written as text
 *  (objects as JSON, missing values as nothing). */
export function resolveTemplates(value: unknown, ctx: TemplateContext): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return lookup(whole[1], ctx) ?? null;
    return value.replace(TEMPLATE, (_m, expr: string) => asText(lookup(expr, ctx)));
  }
  if (Array.isArray(value)) return value.map((v) => resolveTemplates(v, ctx));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = resolveTemplates(v, ctx);
    return out;
  }
  return value;
}

function lookup(expr: string, ctx: TemplateContext): unknown {
  if (!PATH.test(expr)) throw new TemplateError(`'{{${expr}}}' is not a template`);
  const [root, ...rest] = expr.split('.');
  if (root === 'secrets') {
    const value = ctx.secrets.get(rest[0]);
    if (value === undefined || rest.length !== 1) throw new TemplateError(`Secret '${rest.join('.')}' is unknown or has no value (set one with PUT /credentials/{id})`);
    return value;
  }
  let current: unknown = root === 'event' ? ctx.event : ctx.steps;
  for (const key of rest) {
    if (current === null || typeof current !== 'object') return undefined;
    // Own properties only: `__proto__`, `constructor` and the like resolve to nothing.
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function asText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export { secretMasker, type SecretMasker } from './secret-masker.js';

/** The forms a secret value takes when it travels: as is; JSON-escaped (also with non-ASCII as
 *  `\u00e9`, and `/` as `\/`); `encodeURIComponent`; as the WHATWG URL parser (Node's `URL`,
 *  `fetch`, `http.request`) writes it in a path or a query; form-encoded (`URLSearchParams`); and
 *  as a host name (IDNA: a non-ASCII name in punycode, `xn--...`). Letter case is not part of a
 *  form: the masker matches every form whatever its case (a host comes back lower-cased). */
export function secretForms(s: string): string[] {
  const json = JSON.stringify(s).slice(1, -1);
  const jsonAscii = json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const forms = [s, json, jsonAscii, jsonAscii.replaceAll('/', '\\/'), urlForm(s, 'path'), urlForm(s, 'query'), new URLSearchParams([['', s]]).toString().slice(1)];
  try { forms.push(encodeURIComponent(s)); } catch { /* a lone surrogate: URL forms above cover it */ }
  const host = domainToASCII(s);
  if (host && host !== s.toLowerCase()) forms.push(host);
  return forms;
}

let urlTables: { path: string[]; query: string[] } | undefined;

/** How the URL parser writes each ASCII character in a path and in a query, read from the
 *  parser itself. A character that ends the part (`?`, `#`) is kept as is. */
function asciiUrlTables(): { path: string[]; query: string[] } {
  if (urlTables) return urlTables;
  const path: string[] = [];
  const query: string[] = [];
  const inner = (serialised: string, prefix: string, ch: string) =>
    serialised.startsWith(prefix) && serialised.endsWith('b') ? serialised.slice(prefix.length, -1) : ch;
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c);
    path.push(inner(new URL(`http://h/a${ch}b`).pathname, '/a', ch));
    query.push(inner(new URL(`http://h/?a${ch}b`).search, '?a', ch));
  }
  urlTables = { path, query };
  return urlTables;
}

function urlForm(s: string, part: 'path' | 'query'): string {
  const table = asciiUrlTables()[part];
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 128) out += table[c];
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export interface JsonMapping {
  text?: (s: string) => string;
  scalar?: (v: number | boolean) => unknown;
  key?: (k: string) => string;
  /** Levels of arrays and objects kept (default 1000); a deeper one is replaced by `tooDeep(it)`. */
  maxDepth?: number;
  /** Levels of arrays kept (default: no other bound than `maxDepth`); a deeper array is replaced by `tooDeep(it)`. */
  maxArrayDepth?: number;
  tooDeep?: (v: unknown) => unknown;
}

/** A deep copy of a JSON-like value with its strings, numbers, booleans and object keys passed
 *  through the given functions. The copy owns every key (a `__proto__` key stays a plain key). */
export function mapJson(value: unknown, m: JsonMapping): unknown {
  const maxDepth = m.maxDepth ?? 1000;
  const maxArrayDepth = m.maxArrayDepth ?? Infinity;
  const walk = (v: unknown, depth: number, arrays: number): unknown => {
    if (typeof v === 'string') return m.text ? m.text(v) : v;
    if (typeof v === 'number' || typeof v === 'boolean') return m.scalar ? m.scalar(v) : v;
    if (v === null || typeof v !== 'object') return v;
    const isArray = Array.isArray(v);
    if (depth >= maxDepth || (isArray && arrays >= maxArrayDepth)) return m.tooDeep ? m.tooDeep(v) : null;
    if (isArray) return v.map((x) => walk(x, depth + 1, arrays + 1));
    if (!isPlainObject(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      Object.defineProperty(out, m.key ? m.key(k) : k, { value: walk(x, depth + 1, arrays), enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  return walk(value, 0, 0);
}

function walkStrings(value: unknown, visit: (s: string) => void) {
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) value.forEach((v) => walkStrings(v, visit));
  else if (isPlainObject(value)) Object.values(value).forEach((v) => walkStrings(v, visit));
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
