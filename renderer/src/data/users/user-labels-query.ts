// Emails and names of users named by id (members, message authors): one request per set of ids
// (at most 100), kept a minute.
import { useQuery } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { ListResponse, User } from '../types';

export function getUsersByIds(appId: string, ids: string[]): Promise<ListResponse<User>> {
  return workspaceApi<ListResponse<User>>(appId, '/users', { query: { 'filter[_id][$in]': ids.join(','), limit: 100, fields: '_id,email,name' } });
}

export function useUserLabelsQuery(appId: string, ids: string[]) {
  return useQuery({ queryKey: keys.userLabels(appId, ids), enabled: ids.length > 0, staleTime: 60_000, queryFn: () => getUsersByIds(appId, ids) });
}
