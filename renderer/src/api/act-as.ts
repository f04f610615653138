// The workspace API as someone else: the console is signed in as the workspace's admin, and a
// page may "act as" one of the workspace's users through the API's own impersonation
// (`POST /auth/impersonate/{userId}`, admin only). The server then applies that user's rules
// exactly as for the user (the token carries `act.sub` = the admin). Tokens are kept in memory
// per workspace and user, and minted again a minute before they expire or after a 401.
import { adminToken, errorFrom, send, tokenCache, workspaceApi, type RequestOptions } from './client';

const actAsTokens = tokenCache();

/** An access token of `userId` in `appId` (undefined: the admin's own). */
export function tokenAs(appId: string, userId: string | undefined, renew = false): Promise<string> {
  if (!userId) return adminToken(appId, renew);
  return actAsTokens.get(`${appId}\u0000${userId}`, renew,
    () => workspaceApi<{ token: string }>(appId, `/auth/impersonate/${encodeURIComponent(userId)}`, { method: 'POST' }));
}

export function forgetActAsTokens(): void { actAsTokens.clear(); }

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
