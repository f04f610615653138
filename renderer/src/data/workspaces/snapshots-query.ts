// A workspace's snapshots.
import { useQuery } from '@tanstack/react-query';
import { consoleApi, enc } from '../../api/client';
import { keys } from '../keys';
import type { Snapshot } from '../types';

export function getSnapshots(appId: string): Promise<{ data: Snapshot[] }> {
  return consoleApi<{ data: Snapshot[] }>(`/workspaces/${enc(appId)}/snapshots`);
}

export function useSnapshotsQuery(appId: string | undefined) {
  return useQuery({ queryKey: keys.snapshots(appId ?? ''), queryFn: () => getSnapshots(appId!), enabled: !!appId });
}
