// A page of the server's workspaces (console API).
import { useQuery } from '@tanstack/react-query';
import { consoleApi } from '../../api/client';
import { keys } from '../keys';
import type { ListResponse, WorkspaceInfo } from '../types';

export function getWorkspaces(page: { limit: number; offset?: number }): Promise<ListResponse<WorkspaceInfo>> {
  return consoleApi<ListResponse<WorkspaceInfo>>('/workspaces', { query: page });
}

export function useWorkspacesQuery(page: { limit: number; offset: number }) {
  return useQuery({ queryKey: keys.workspacesPage(page.offset), queryFn: () => getWorkspaces(page) });
}

/** The first 100, for the shell's workspace switcher. */
export function useWorkspaceSwitcherQuery() {
  return useQuery({ queryKey: keys.workspaceSwitcher, queryFn: () => getWorkspaces({ limit: 100 }) });
}
