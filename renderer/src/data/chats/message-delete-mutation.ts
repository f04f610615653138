// Deletes a message, as the acting identity; resolves with the message deleted.
import { enc } from '../../api/client';
import { workspaceApiAs } from '../../api/act-as';
import { useWriteMutation, type MutationOptions } from '../mutation';
import type { Message } from '../types';

export async function deleteMessage(appId: string, actAs: string | undefined, m: Message): Promise<Message> {
  await workspaceApiAs(appId, actAs, `/chats/messages/${enc(m._id)}`, { method: 'DELETE' });
  return m;
}

/** The caller removes it from the messages it shows. */
export function useMessageDeleteMutation(appId: string, actAs: string | undefined, options?: MutationOptions<Message, Message>) {
  return useWriteMutation((m: Message) => deleteMessage(appId, actAs, m), () => [], options);
}
