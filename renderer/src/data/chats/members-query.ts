// A page of a channel's members, as the acting identity sees them; fetched again when the channel
// changes (its `updatedAt`).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { enc } from '../../api/client';
import { workspaceApiAs } from '../../api/act-as';
import { keys } from '../keys';
import type { Channel, ListResponse, Member } from '../types';

export function getMembers(appId: string, actAs: string | undefined, channelId: string, page: { limit: number; offset: number }): Promise<ListResponse<Member>> {
  return workspaceApiAs<ListResponse<Member>>(appId, actAs, `/chats/${enc(channelId)}/members`, { query: page });
}

export function useMembersQuery(appId: string, actAs: string | undefined, channel: Channel, page: { limit: number; offset: number }) {
  return useQuery({
    queryKey: [...keys.members(appId, channel._id, actAs), page.offset, channel.updatedAt],
    queryFn: () => getMembers(appId, actAs, channel._id, page),
    placeholderData: keepPreviousData,
  });
}
