// Request bodies of the chats API (channels, members, messages), shared by REST, the realtime
// socket and scenario steps so that every path validates the same way.
import { z } from 'zod';
import { ApiError } from '../../core/errors.js';

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

/** 422 `read_only` for the first server-managed field a body tries to set. */
export function rejectReadOnly(body: unknown, fields: readonly string[]): void {
  if (body === null || typeof body !== 'object') return;
  for (const f of fields) {
    if (Object.prototype.hasOwnProperty.call(body, f)) throw ApiError.invalidField(f, 'read_only', `'${f}' cannot be changed`);
  }
}

export const CHANNEL_READ_ONLY = ['_id', '_owner', 'type', 'createdAt', 'updatedAt'] as const;
export const MESSAGE_READ_ONLY = ['_id', 'channelId', 'author', 'createdAt', 'updatedAt'] as const;
