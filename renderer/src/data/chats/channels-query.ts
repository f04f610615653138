// A page of the workspace's channels (all of them: listed as the admin), by name, searched by
// part of the name.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { Channel, ListResponse } from '../types';

export interface ChannelsVariables { limit: number; offset: number; search?: string }

function channelsQuery({ limit, offset, search }: ChannelsVariables) {
  return { limit, offset, sort: 'name', ...(search ? { 'filter[name][$contains]': search } : {}) };
}

export function getChannels(appId: string, vars: ChannelsVariables): Promise<ListResponse<Channel>> {
  return workspaceApi<ListResponse<Channel>>(appId, '/chats/channels', { query: channelsQuery(vars) });
}

export function useChannelsQuery(appId: string, vars: ChannelsVariables) {
  return useQuery({ queryKey: keys.channelsList(appId, channelsQuery(vars)), queryFn: () => getChannels(appId, vars), placeholderData: keepPreviousData });
}
