// Deletes a workspace and all its data.
import { consoleApi, enc } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export async function deleteWorkspace(appId: string): Promise<void> {
  await consoleApi(`/workspaces/${enc(appId)}`, { method: 'DELETE' });
}

export function useWorkspaceDeleteMutation(options?: MutationOptions<void, string>) {
  return useWriteMutation(deleteWorkspace, () => [keys.workspaces], options);
}
