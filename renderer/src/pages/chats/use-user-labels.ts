// Emails and names of users named by id (members, message authors): one users request per set
// of ids (at most 100 at a time, `filter[_id][$in]`), cached by TanStack Query.
import { useQuery } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../../api/keys';
import type { ListResponse, User } from '../../../../server/shared/models';

export type UserLabels = Map<string, { email: string; name: string }>;

export function useUserLabels(appId: string, ids: string[]): UserLabels {
  const wanted = [...new Set(ids)].sort().slice(0, 100);
  const q = useQuery({
    queryKey: [...keys.users(appId), 'labels', wanted],
    enabled: wanted.length > 0,
    staleTime: 60_000,
    queryFn: () => workspaceApi<ListResponse<User>>(appId, '/users', {
      query: { 'filter[_id][$in]': wanted.join(','), limit: 100, fields: '_id,email,name' },
    }),
  });
  return new Map((q.data?.data ?? []).map((u) => [u._id, { email: u.email, name: u.name }]));
}

/** "Name <email>", or whichever is known, or the id. */
export function userLabel(labels: UserLabels, id: string, fallbackName?: string): string {
  const u = labels.get(id);
  const name = u?.name || fallbackName || '';
  if (u?.email) return name ? `${name} (${u.email})` : u.email;
  return name || id;
}
