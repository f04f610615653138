// HTTP to the server: the console API (console token) and a workspace's API (an admin token
// minted by the console API, renewed before it expires). Errors become ApiError with the
// contract's code, message and details.
import type { ErrorBody } from '../../../server/shared/error-codes';
import { consoleToken } from './session';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
  /** Field errors of a 422, keyed by field path. */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    const list = (this.details.errors as Array<{ field: string; reason: string; message?: string }> | undefined) ?? [];
    for (const e of list) out[e.field] ??= e.message ?? e.reason;
    const field = this.details.field as string | undefined;
    if (field && !out[field]) out[field] = (this.details.reason as string) ?? this.message;
    return out;
  }
}

/** Called when the console token is refused (401 from the console API). */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(fn: () => void): void { onUnauthorized = fn; }
/** For console calls made outside consoleApi (the request log's stream). */
export function reportUnauthorized(): void { onUnauthorized(); }

export interface RequestOptions {
  method?: string;
  body?: unknown;
  query?: Record<string, string | number | undefined> | URLSearchParams;
  signal?: AbortSignal;
}

/** Marks the console's own requests, so the request log can leave them out (it grants nothing). */
export const CONSOLE_HEADER = { 'x-homebase-console': '1' } as const;

/** One request with a bearer token; a network failure becomes ApiError NETWORK. */
export async function send(url: string, token: string | undefined, opts: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { ...CONSOLE_HEADER };
  if (token) headers.authorization = `Bearer ${token}`;
  let body: BodyInit | undefined;
  if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  let res: Response;
  try {
    res = await fetch(withQuery(url, opts.query), { method: opts.method ?? 'GET', headers, body, signal: opts.signal });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError(0, 'NETWORK', 'The server cannot be reached. Is Homebase still running?');
  }
  return res;
}

export function withQuery(url: string, query?: RequestOptions['query']): string {
  if (!query) return url;
  const params = query instanceof URLSearchParams ? query : new URLSearchParams();
  if (!(query instanceof URLSearchParams)) {
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  }
  const qs = params.toString();
  return qs ? `${url}${url.includes('?') ? '&' : '?'}${qs}` : url;
}

export async function errorFrom(res: Response): Promise<ApiError> {
  let body: Partial<ErrorBody> | undefined;
  try { body = (await res.json()) as ErrorBody; } catch { /* not JSON */ }
  const err = body?.error;
  return new ApiError(res.status, err?.code ?? `HTTP_${res.status}`, err?.message ?? res.statusText ?? 'Request failed', err?.details ?? {});
}

async function parse<T>(res: Response): Promise<T> {
  if (!res.ok) throw await errorFrom(res);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The console API: `/api/workspaces...`, `/api/health`. */
export async function consoleApi<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await send(`/api${path}`, consoleToken(), opts);
  if (res.status === 401) { onUnauthorized(); }
  return parse<T>(res);
}

interface Minted { token: string; exp: number }

function expiryOf(token: string): number {
  try {
    const payload = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number };
    return (payload.exp ?? 0) * 1000;
  } catch {
    return 0;
  }
}

/** Access tokens minted on demand and kept in memory per key: minted again a minute before they
 *  expire, or at once when `renew` (after a 401). A failed mint is forgotten. */
export function tokenCache() {
  const minted = new Map<string, Promise<Minted>>();
  return {
    async get(key: string, renew: boolean, mint: () => Promise<{ token: string }>): Promise<string> {
      let entry = minted.get(key);
      if (entry && !renew) {
        const got = await entry.catch(() => undefined);
        if (got && got.exp - Date.now() > 60_000) return got.token;
      }
      entry = mint().then(({ token }) => ({ token, exp: expiryOf(token) }));
      minted.set(key, entry);
      entry.catch(() => minted.delete(key));
      return (await entry).token;
    },
    clear: () => minted.clear(),
  };
}

const adminTokens = tokenCache();

/** A fresh admin token of the workspace, minted by the console API. */
export function adminToken(appId: string, renew = false): Promise<string> {
  return adminTokens.get(appId, renew, () => consoleApi<{ token: string }>(`/workspaces/${encodeURIComponent(appId)}/token`, { method: 'POST' }));
}

export function forgetAdminTokens(): void { adminTokens.clear(); }

/** A workspace's API: `/api/app/{appId}/...` as its admin. */
export async function workspaceApi<T>(appId: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const url = `/api/app/${encodeURIComponent(appId)}${path}`;
  let res = await send(url, await adminToken(appId), opts);
  if (res.status === 401) res = await send(url, await adminToken(appId, true), opts);
  return parse<T>(res);
}

export const apiBase = (): string => `${window.location.origin}/api`;
export const enc = encodeURIComponent;

/** Downloads a console-API resource as a file (the token goes in a header, so a plain link
 *  cannot do it). */
export async function consoleDownload(path: string, filename: string): Promise<void> {
  const res = await fetch(`/api${path}`, { headers: { authorization: `Bearer ${consoleToken()}` } });
  if (!res.ok) throw await errorFrom(res);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Uploads a body with progress (fetch has no upload progress): resolves with the parsed JSON
 *  answer, rejects with ApiError. */
export function uploadWithProgress<T>(url: string, body: Blob, headers: Record<string, string>, onProgress: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    for (const [k, v] of Object.entries({ ...CONSOLE_HEADER, ...headers })) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
    xhr.onerror = () => reject(new ApiError(0, 'NETWORK', 'The upload did not reach the server'));
    xhr.onload = () => {
      let parsed: { error?: { code: string; message: string; details?: Record<string, unknown> } } | undefined;
      try { parsed = xhr.responseText ? JSON.parse(xhr.responseText) : undefined; } catch { /* not JSON */ }
      if (xhr.status >= 200 && xhr.status < 300) { onProgress(1); resolve(parsed as T); return; }
      const err = parsed?.error;
      reject(new ApiError(xhr.status, err?.code ?? `HTTP_${xhr.status}`, err?.message ?? xhr.statusText, err?.details ?? {}));
    };
    xhr.send(body);
  });
}

export function consoleAuthHeader(): Record<string, string> {
  return { authorization: `Bearer ${consoleToken()}` };
}
