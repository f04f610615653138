// A workspace's v2 API (`/api/v2/app/{appId}/...`) as its admin: the same minted admin token as
// v1, the answer's envelope (`data`, `meta`, `links`) returned as it is; errors become ApiError.
import { adminToken, errorFrom, send, type RequestOptions } from './client';

export interface V2Answer<T> { data: T; meta: { timestamp: string; version: string; total?: number; limit?: number }; links?: Record<string, string> }

export async function workspaceApiV2<T>(appId: string, path: string, opts: RequestOptions = {}): Promise<V2Answer<T>> {
  const url = `/api/v2/app/${encodeURIComponent(appId)}${path}`;
  let res = await send(url, await adminToken(appId), opts);
  if (res.status === 401) res = await send(url, await adminToken(appId, true), opts);
  if (!res.ok) throw await errorFrom(res);
  if (res.status === 204) return undefined as unknown as V2Answer<T>;
  return (await res.json()) as V2Answer<T>;
}
