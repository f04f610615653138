// Swagger UI fills "Try it out" with its schema placeholders: an object parameter such as the
// lists' `filter` becomes `filter[additionalProp1]=...` (a filter on a field nobody has, so the
// list came back empty), and a record body gets `"additionalProp1": {}` and `"_owner":
// "string"`. The request interceptor drops them before the request leaves, so an untouched
// Try it out sends what the user meant: nothing extra.

const PLACEHOLDER_KEY = /^additionalProp\d+$/;

/** The URL without query parameters that name a placeholder key (`filter[additionalProp1]...`). */
export function dropPlaceholderParams(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  const kept = new URLSearchParams();
  for (const [k, v] of params) if (!/additionalProp\d+/.test(k)) kept.append(k, v);
  const rest = kept.toString();
  return rest ? `${url.slice(0, q)}?${rest}` : url.slice(0, q);
}

function strip(value: unknown, top: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => strip(v, false));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (PLACEHOLDER_KEY.test(k)) continue;
    // The server sets a record's owner; Swagger's sample "string" is never meant.
    if (top && k === '_owner' && v === 'string') continue;
    out[k] = strip(v, false);
  }
  return out;
}

/** A JSON body without placeholder keys; anything else unchanged. */
export function dropPlaceholderBody(body: unknown): unknown {
  if (typeof body !== 'string' || !/additionalProp\d+|"_owner"\s*:\s*"string"/.test(body)) return body;
  try { return JSON.stringify(strip(JSON.parse(body), true), null, 2); } catch { return body; }
}

/** Swagger UI's `requestInterceptor`. */
export function dropPlaceholders<R extends { url: string; body?: unknown }>(req: R): R {
  req.url = dropPlaceholderParams(req.url);
  if (req.body !== undefined) req.body = dropPlaceholderBody(req.body);
  return req;
}
