// Deletes records, six requests at a time; fails (after trying them all) when some could not be
// deleted, naming the first few. The collection's pages are stale either way.
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export async function deleteRecords(appId: string, collection: string, ids: string[]): Promise<void> {
  const failed: string[] = [];
  let i = 0;
  const worker = async () => {
    while (i < ids.length) {
      const id = ids[i++];
      try { await workspaceApi(appId, `/database/${enc(collection)}/${enc(id)}`, { method: 'DELETE' }); } catch { failed.push(id); }
    }
  };
  await Promise.all(Array.from({ length: Math.min(6, ids.length) }, worker));
  if (failed.length) throw new Error(`${failed.length} of ${ids.length} records could not be deleted: ${failed.slice(0, 5).join(', ')}`);
}

export function useRecordsDeleteMutation(appId: string, collection: string, options?: MutationOptions<void, string[]>) {
  return useWriteMutation((ids: string[]) => deleteRecords(appId, collection, ids), () => [keys.records(appId, collection)], options, { settled: true });
}
