// Request and response bodies as the request log shows them: bounded, and with every secret
// masked (passwords, tokens, signing secrets, API keys, a secret's value), so a password or a
// token never reaches the log's readers or its file. Work happens when the log is read or
// written to disk, never on the request's path (which only keeps references).

/** Bodies are shown (and kept on disk) up to this many characters. */
export const BODY_LIMIT = 16 * 1024;
/** A request body whose `content-length` is over this is not kept at all (only its size). */
export const KEPT_REQUEST_BODY_LIMIT = 64 * 1024;

const SECRET_KEY = /passw(or)?d|passphrase|secret|token|api[-_]?key|authorization|credential|private[-_]?key|signature/i;
const MASK = '***';

/** A shown body: a JSON value (masked) or, when too long or not JSON, text cut at BODY_LIMIT. */
export type ShownBody = { json: unknown } | { text: string; truncated?: true };

/** Replaces the values of secret-looking keys (and, for a secret's own route, `value`). */
export function maskValue(value: unknown, secretValueKey: boolean, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > 32) return value;
  if (Array.isArray(value)) return value.map((v) => maskValue(v, secretValueKey, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = (SECRET_KEY.test(k) || (secretValueKey && k === 'value')) && v !== null && v !== undefined && v !== '' ? MASK : maskValue(v, secretValueKey, depth + 1);
  }
  return out;
}

/** Masks `"secretKey": "..."` pairs in JSON text that cannot be parsed whole (cut short). */
function maskText(text: string, secretValueKey: boolean): string {
  return text.replace(/"([^"\\]{1,80})"(\s*:\s*)("(?:[^"\\]|\\.)*"?|-?\d[\d.eE+-]*)/g, (all, key: string, colon: string) =>
    (SECRET_KEY.test(key) || (secretValueKey && key === 'value') ? `"${key}"${colon}"${MASK}"` : all));
}

/** Routes whose `value` is a secret's value (`/credentials`). */
export function isSecretRoute(path: string): boolean { return /\/credentials(?:[/?]|$)/.test(path); }

/** A parsed request body (`req.body`) as shown. */
export function showRequestBody(body: unknown, path: string): ShownBody | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0) return undefined;
  const masked = maskValue(body, isSecretRoute(path));
  const text = JSON.stringify(masked);
  if (text === undefined) return undefined;
  return text.length <= BODY_LIMIT ? { json: masked } : { text: text.slice(0, BODY_LIMIT), truncated: true };
}

/** A response's JSON text as shown. */
export function showResponseText(text: string | undefined, path: string): ShownBody | undefined {
  if (!text) return undefined;
  const secret = isSecretRoute(path);
  if (text.length <= BODY_LIMIT) {
    try { return { json: maskValue(JSON.parse(text), secret) }; } catch { /* below */ }
    return { text: maskText(text, secret) };
  }
  return { text: maskText(text.slice(0, BODY_LIMIT), secret), truncated: true };
}
