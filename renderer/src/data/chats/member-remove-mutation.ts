// Removes a member from a channel (or leaves it, for the member acted as).
import { enc } from '../../api/client';
import { workspaceApiAs } from '../../api/act-as';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export async function removeMember(appId: string, actAs: string | undefined, channelId: string, userId: string): Promise<void> {
  await workspaceApiAs(appId, actAs, `/chats/${enc(channelId)}/members/${enc(userId)}`, { method: 'DELETE' });
}

export function useMemberRemoveMutation(appId: string, actAs: string | undefined, channelId: string, options?: MutationOptions<void, string>) {
  return useWriteMutation((userId: string) => removeMember(appId, actAs, channelId, userId), () => [keys.members(appId, channelId, actAs)], options);
}
