// Emails and names of users named by id (members, message authors): one users request per set
// of ids (at most 100 at a time, `filter[_id][$in]`), cached by TanStack Query.
import { useUserLabelsQuery } from '../../data/users/user-labels-query';

export type UserLabels = Map<string, { email: string; name: string }>;

export function useUserLabels(appId: string, ids: string[]): UserLabels {
  const wanted = [...new Set(ids)].sort().slice(0, 100);
  const q = useUserLabelsQuery(appId, wanted);
  return new Map((q.data?.data ?? []).map((u) => [u._id, { email: u.email, name: u.name }]));
}

/** "Name <email>", or whichever is known, or the id. */
export function userLabel(labels: UserLabels, id: string, fallbackName?: string): string {
  const u = labels.get(id);
  const name = u?.name || fallbackName || '';
  if (u?.email) return name ? `${name} (${u.email})` : u.email;
  return name || id;
}
