// Uploads one file in one request (`POST /storage/upload`, multipart), as the workspace's admin
// (a refused token is minted again once). For a record's file field; the Storage page uploads
// with tus (resumable) instead.
import { adminToken, CONSOLE_HEADER, enc, errorFrom } from '../../api/client';

export async function uploadFile(appId: string, file: File): Promise<{ _id: string; name: string }> {
  const body = new FormData();
  body.append('file', file);
  const url = `/api/app/${enc(appId)}/storage/upload`;
  const post = async (renew: boolean) => fetch(url, { method: 'POST', headers: { authorization: `Bearer ${await adminToken(appId, renew)}`, ...CONSOLE_HEADER }, body });
  let res = await post(false);
  if (res.status === 401) res = await post(true);
  if (!res.ok) throw await errorFrom(res);
  return (await res.json()) as { _id: string; name: string };
}
