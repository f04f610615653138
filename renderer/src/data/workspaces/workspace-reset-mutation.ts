// Empties a workspace (records, users but the first admin, files, chats, logs), its schema kept
// or not; everything cached of it is stale after.
import { consoleApi, enc } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export interface WorkspaceResetVariables { appId: string; keepSchema: boolean }

export async function resetWorkspace({ appId, keepSchema }: WorkspaceResetVariables): Promise<void> {
  await consoleApi(`/workspaces/${enc(appId)}/reset`, { method: 'POST', body: { keepSchema } });
}

export function useWorkspaceResetMutation(options?: MutationOptions<void, WorkspaceResetVariables>) {
  return useWriteMutation(resetWorkspace, ({ appId }) => [keys.ws(appId)], options);
}
