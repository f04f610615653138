// Request bodies of the chats API (channels, members, messages), shared by REST, the realtime
// socket and scenario steps so that every path validates the same way.
import { z } from 'zod';
import { SERVER_FIELDS } from '../../core/read-only.js';

export const CHANNEL_TYPES = ['group', 'direct'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const MAX_TEXT = 10_000;
const userId = z.string().min(1).max(64);
const name = z.string().max(200);
const text = z.string().min(1).max(MAX_TEXT).refine((s) => s.trim().length > 0, 'must not be blank');
const messageType = z.string().min(1).max(32);

export const createChannelSchema = z.strictObject({
  name: name.optional(),
  type: z.enum(CHANNEL_TYPES).optional(),
  description: z.string().max(2000).optional(),
  members: z.array(userId).max(1000).optional(),
});

export const updateChannelSchema = z.strictObject({
  name: name.optional(),
  description: z.string().max(2000).optional(),
  members: z.array(userId).max(1000).optional(),
});

export const addMemberSchema = z.strictObject({ userId });

export const postMessageSchema = z.strictObject({
  text,
  type: messageType.optional(),
});

export const updateMessageSchema = z.strictObject({
  text: text.optional(),
  type: messageType.optional(),
});

/** `PUT` that replaces a message (v2): what posting takes (`text` required, `type` back to
 *  `text` when absent). */
export const replaceMessageSchema = postMessageSchema;

// Server-managed fields (the one rule: core/read-only.ts). A channel's `type` is chosen at
// creation; a message's channel comes from the path and its author from the token.
export const NEW_CHANNEL_READ_ONLY = [...SERVER_FIELDS, '_owner'] as const;
export const NEW_MESSAGE_READ_ONLY = [...SERVER_FIELDS, 'author'] as const;
export const CHANNEL_READ_ONLY = [...NEW_CHANNEL_READ_ONLY, 'type'] as const;
export const MESSAGE_READ_ONLY = [...NEW_MESSAGE_READ_ONLY, 'channelId'] as const;
