// Deletes files, all at once; fails (after trying them all) when some could not be deleted. The
// files pages are stale either way.
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export async function deleteFiles(appId: string, ids: string[]): Promise<void> {
  const failed: string[] = [];
  await Promise.all(ids.map((id) => workspaceApi(appId, `/storage/${enc(id)}`, { method: 'DELETE' }).catch(() => failed.push(id))));
  if (failed.length) throw new Error(`${failed.length} of ${ids.length} files could not be deleted`);
}

export function useFilesDeleteMutation(appId: string, options?: MutationOptions<void, string[]>) {
  return useWriteMutation((ids: string[]) => deleteFiles(appId, ids), () => [keys.files(appId), keys.counts(appId)], options, { settled: true });
}
