// Adds a user to a channel, as the acting identity (owner or admin).
import { enc } from '../../api/client';
import { workspaceApiAs } from '../../api/act-as';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export async function addMember(appId: string, actAs: string | undefined, channelId: string, userId: string): Promise<void> {
  await workspaceApiAs(appId, actAs, `/chats/${enc(channelId)}/members`, { method: 'POST', body: { userId } });
}

export function useMemberAddMutation(appId: string, actAs: string | undefined, channelId: string, options?: MutationOptions<void, string>) {
  return useWriteMutation((userId: string) => addMember(appId, actAs, channelId, userId), () => [keys.members(appId, channelId, actAs)], options);
}
