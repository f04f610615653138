// Changes a message's text, as the acting identity; the answer is the message as stored.
import { enc } from '../../api/client';
import { workspaceApiAs } from '../../api/act-as';
import { useWriteMutation, type MutationOptions } from '../mutation';
import type { Message } from '../types';

export interface MessageEditVariables { id: string; text: string }

export function editMessage(appId: string, actAs: string | undefined, { id, text }: MessageEditVariables): Promise<Message> {
  return workspaceApiAs<Message>(appId, actAs, `/chats/messages/${enc(id)}`, { method: 'PATCH', body: { text } });
}

/** The caller applies the answer to the messages it shows. */
export function useMessageEditMutation(appId: string, actAs: string | undefined, options?: MutationOptions<Message, MessageEditVariables>) {
  return useWriteMutation((vars: MessageEditVariables) => editMessage(appId, actAs, vars), () => [], options);
}
