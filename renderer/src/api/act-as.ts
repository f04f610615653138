// The workspace API as someone else: the console is signed in as the workspace's admin, and a
// page may "act as" one of the workspace's users through the API's own impersonation
// (`POST /auth/impersonate/{userId}`, admin only). The server then applies that user's rules
// exactly as for the user (the token carries `act.sub` = the admin). Tokens are kept in memory
// per workspace and user, and minted again a minute before they expire or after a 401.
import { adminToken, errorFrom, withQuery, workspaceApi, ApiError, type RequestOptions } from './client';

interface Minted { token: string; exp: number }
const minted = new Map<string, Promise<Minted>>();

function expiryOf(token: string): number {
  try {
    const payload = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number };
    return (payload.exp ?? 0) * 1000;
  } catch {
    return 0;
  }
}

/** An access token of `userId` in `appId` (undefined: the admin's own). */
export async function tokenAs(appId: string, userId: string | undefined, renew = false): Promise<string> {
  if (!userId) return adminToken(appId, renew);
  const key = `${appId}\u0000${userId}`;
  let entry = minted.get(key);
  if (entry && !renew) {
    const got = await entry.catch(() => undefined);
    if (got && got.exp - Date.now() > 60_000) return got.token;
  }
  entry = workspaceApi<{ token: string }>(appId, `/auth/impersonate/${encodeURIComponent(userId)}`, { method: 'POST' })
    .then(({ token }) => ({ token, exp: expiryOf(token) }));
  minted.set(key, entry);
  entry.catch(() => minted.delete(key));
  return (await entry).token;
}

export function forgetActAsTokens(): void { minted.clear(); }

async function send(url: string, token: string, opts: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  try {
    return await fetch(withQuery(url, opts.query), {
      method: opts.method ?? 'GET', headers, signal: opts.signal,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError(0, 'NETWORK', 'The server cannot be reached. Is Homebase still running?');
  }
}

/** `workspaceApi` as `userId` (or as the admin when undefined). */
export async function workspaceApiAs<T>(appId: string, userId: string | undefined, path: string, opts: RequestOptions = {}): Promise<T> {
  if (!userId) return workspaceApi<T>(appId, path, opts);
  const url = `/api/app/${encodeURIComponent(appId)}${path}`;
  let res = await send(url, await tokenAs(appId, userId), opts);
  if (res.status === 401) res = await send(url, await tokenAs(appId, userId, true), opts);
  if (!res.ok) throw await errorFrom(res);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}
