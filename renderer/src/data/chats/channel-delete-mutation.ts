// Deletes a channel with its messages, as the acting identity. The caller drops it from the cache
// (`forgetChannel`).
import { enc } from '../../api/client';
import { workspaceApiAs } from '../../api/act-as';
import { useWriteMutation, type MutationOptions } from '../mutation';

export async function deleteChannel(appId: string, actAs: string | undefined, id: string): Promise<void> {
  await workspaceApiAs(appId, actAs, `/chats/channels/${enc(id)}`, { method: 'DELETE' });
}

export function useChannelDeleteMutation(appId: string, actAs: string | undefined, options?: MutationOptions<void, string>) {
  return useWriteMutation((id: string) => deleteChannel(appId, actAs, id), () => [], options);
}
