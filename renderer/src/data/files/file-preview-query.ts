// The first 64 KiB of a text or JSON file (a Range request), JSON pretty-printed: enough to look
// at. `src` is the file's address with its token.
import { useQuery } from '@tanstack/react-query';
import { CONSOLE_HEADER } from '../../api/client';
import { keys } from '../keys';
import type { FileObj } from '../types';

export async function getFileHead(file: FileObj, src: string): Promise<string> {
  const res = await fetch(src, { headers: { range: 'bytes=0-65535', ...CONSOLE_HEADER } });
  const body = await res.text();
  if (file.type.includes('json') || /\.json$/i.test(file.name)) {
    try { return JSON.stringify(JSON.parse(body), null, 2); } catch { return body; }
  }
  return body;
}

export function useFilePreviewQuery(appId: string, file: FileObj, src: string, enabled: boolean) {
  return useQuery({ queryKey: keys.filePreview(appId, file._id), enabled, queryFn: () => getFileHead(file, src) });
}
