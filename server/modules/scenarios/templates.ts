// Step templates: `{{event.data.x}}`, `{{steps.0.output.body.id}}`, `{{secrets.NAME}}`, resolved
// by a plain path lookup over own properties (never eval, Function or vm), and the masking that
// replaces every secret value by `***` in what an execution stores.

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

/** Replaces every secret value (as is, JSON-escaped, or URL-encoded) by `***` in strings and
 *  object keys, deeply. Longer values first, so that one secret containing another is fully hidden. */
export function maskSecrets<T>(value: T, secrets: Iterable<string>): T {
  const needles = [...new Set([...secrets].flatMap((s) => [s, JSON.stringify(s).slice(1, -1), encodeURIComponent(s)]))]
    .filter((s) => s.length > 0)
    .sort((a, b) => b.length - a.length);
  if (needles.length === 0) return value;
  const maskText = (s: string) => needles.reduce((acc, n) => (acc.includes(n) ? acc.split(n).join('***') : acc), s);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return maskText(v);
    if (Array.isArray(v)) return v.map(walk);
    if (isPlainObject(v)) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[maskText(k)] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

function walkStrings(value: unknown, visit: (s: string) => void) {
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) value.forEach((v) => walkStrings(v, visit));
  else if (isPlainObject(value)) Object.values(value).forEach((v) => walkStrings(v, visit));
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
