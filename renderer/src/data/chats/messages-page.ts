// A page of a channel's messages, newest first, as the acting identity: the newest, or those
// before a time (`filter[createdAt][$lt]`). Not cached by TanStack Query: the messages view keeps
// them itself, live events applied in place (pages/chats/use-channel-messages.ts).
import { enc } from '../../api/client';
import { workspaceApiAs } from '../../api/act-as';
import type { ListResponse, Message } from '../types';

export const MESSAGES_PAGE = 50;

export function getMessages(appId: string, actAs: string | undefined, channelId: string, filter: Record<string, string> = {}): Promise<ListResponse<Message>> {
  return workspaceApiAs<ListResponse<Message>>(appId, actAs, `/chats/${enc(channelId)}/messages`, { query: { limit: MESSAGES_PAGE, sort: '-createdAt', ...filter } });
}
