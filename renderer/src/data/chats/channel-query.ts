// One channel, as the acting identity sees it (the admin when `actAs` is undefined).
import { useQuery, type QueryClient } from '@tanstack/react-query';
import { enc } from '../../api/client';
import { workspaceApiAs } from '../../api/act-as';
import { keys } from '../keys';
import type { Channel } from '../types';

export function getChannel(appId: string, id: string, actAs: string | undefined): Promise<Channel> {
  return workspaceApiAs<Channel>(appId, actAs, `/chats/channels/${enc(id)}`);
}

export function useChannelQuery(appId: string, id: string, actAs: string | undefined) {
  return useQuery({ queryKey: keys.channel(appId, id, actAs), queryFn: () => getChannel(appId, id, actAs) });
}

/** Everything cached of the workspace's channels (lists, channels, members) is stale. */
export function invalidateChannels(qc: QueryClient, appId: string): Promise<void> {
  return qc.invalidateQueries({ queryKey: keys.channels(appId) });
}

/** A deleted channel: dropped from the cache (not fetched again), the rest made stale. */
export function forgetChannel(qc: QueryClient, appId: string, id: string, actAs: string | undefined): void {
  qc.removeQueries({ queryKey: keys.channel(appId, id, actAs) });
  void invalidateChannels(qc, appId);
}
