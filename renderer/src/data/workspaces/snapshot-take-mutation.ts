// Takes a snapshot of a workspace (a name that exists is replaced).
import { consoleApi, enc } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export interface SnapshotTakeVariables { appId: string; name: string }

export async function takeSnapshot({ appId, name }: SnapshotTakeVariables): Promise<void> {
  await consoleApi(`/workspaces/${enc(appId)}/snapshots`, { method: 'POST', body: { name, overwrite: true } });
}

export function useSnapshotTakeMutation(options?: MutationOptions<void, SnapshotTakeVariables>) {
  return useWriteMutation(takeSnapshot, ({ appId }) => [keys.snapshots(appId)], options);
}
