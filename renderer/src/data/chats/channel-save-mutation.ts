// Creates a group channel as the admin (who becomes its owner), or changes one's name and
// description as the acting identity (the server's rules apply to it).
import { enc, workspaceApi } from '../../api/client';
import { workspaceApiAs } from '../../api/act-as';
import { useWriteMutation, type MutationOptions } from '../mutation';
import type { Channel } from '../types';

export interface ChannelSaveVariables { id?: string; body: { name: string; description?: string } }

export function saveChannel(appId: string, actAs: string | undefined, { id, body }: ChannelSaveVariables): Promise<Channel> {
  return id
    ? workspaceApiAs<Channel>(appId, actAs, `/chats/channels/${enc(id)}`, { method: 'PATCH', body })
    : workspaceApi<Channel>(appId, '/chats/channels', { method: 'POST', body: { ...body, type: 'group' } });
}

/** The caller refreshes the channels (`invalidateChannels`) as fits: a new one is opened. */
export function useChannelSaveMutation(appId: string, actAs: string | undefined, options?: MutationOptions<Channel, ChannelSaveVariables>) {
  return useWriteMutation((vars: ChannelSaveVariables) => saveChannel(appId, actAs, vars), () => [], options);
}
