// Creates a workspace and its first admin (a generated password is in the answer, once).
import { consoleApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';
import type { CreatedWorkspace } from '../types';

export interface WorkspaceCreateVariables { _id: string; name?: string; admin: { email?: string; password?: string } }

export function createWorkspace(body: WorkspaceCreateVariables): Promise<CreatedWorkspace> {
  return consoleApi<CreatedWorkspace>('/workspaces', { method: 'POST', body });
}

export function useWorkspaceCreateMutation(options?: MutationOptions<CreatedWorkspace, WorkspaceCreateVariables>) {
  return useWriteMutation(createWorkspace, () => [keys.workspaces], options);
}
