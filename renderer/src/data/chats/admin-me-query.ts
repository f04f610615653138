// Who the workspace's admin is (the console's own identity in the workspace), read once.
import { useQuery } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';

export function getAdminMe(appId: string): Promise<{ _id: string; email: string }> {
  return workspaceApi<{ _id: string; email: string }>(appId, '/auth/me');
}

export function useAdminMeQuery(appId: string) {
  return useQuery({ queryKey: keys.adminMe(appId), queryFn: () => getAdminMe(appId), staleTime: Infinity });
}
