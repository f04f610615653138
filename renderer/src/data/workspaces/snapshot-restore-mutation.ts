// Restores a workspace from one of its snapshots; everything cached of it is stale after.
import { consoleApi, enc } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export interface SnapshotRestoreVariables { appId: string; name: string }

export async function restoreSnapshot({ appId, name }: SnapshotRestoreVariables): Promise<void> {
  await consoleApi(`/workspaces/${enc(appId)}/snapshots/${enc(name)}/restore`, { method: 'POST' });
}

export function useSnapshotRestoreMutation(options?: MutationOptions<void, SnapshotRestoreVariables>) {
  return useWriteMutation(restoreSnapshot, ({ appId }) => [keys.ws(appId)], options);
}
