// Loads a dump into a workspace (replacing its data), with upload progress: an upload, not a
// mutation hook (fetch has no upload progress). Everything cached of the workspace is stale
// after it (`invalidateWorkspace`).
import type { QueryClient } from '@tanstack/react-query';
import { consoleAuthHeader, enc, uploadWithProgress } from '../../api/client';
import { keys } from '../keys';

export async function importWorkspace(appId: string, dump: File, onProgress: (fraction: number) => void): Promise<Record<string, unknown>> {
  const res = await uploadWithProgress<{ imported: Record<string, unknown> }>(
    `/api/workspaces/${enc(appId)}/import`, dump, { ...consoleAuthHeader(), 'content-type': 'application/json' }, onProgress,
  );
  return res.imported ?? {};
}

export function invalidateWorkspace(qc: QueryClient, appId: string): Promise<void> {
  return qc.invalidateQueries({ queryKey: keys.ws(appId) });
}
