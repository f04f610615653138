// The chats rules without HTTP: channels, members and messages, who may do what,
// and the channel.* / message.* events. REST routes, the realtime socket and scenario steps
// all call these functions, so every path checks and publishes the same way.
import type { Request } from 'express';
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import type { StoreQuery } from '../../storage/query.js';
import type { EventType } from '../../shared/events.js';
import { newEventId, type BusEvent } from '../../core/bus.js';
import { actorOf, type AuthInfo } from '../caller.js';
import { ApiError } from '../../core/errors.js';
import { withoutReadOnly } from '../../core/read-only.js';
import { parseBody } from '../../core/validate.js';
import { newId } from '../../core/ids.js';
import type { ChangeMode } from '../../core/change-mode.js';
import { findUser } from '../users/index.js';
import {
  addMemberSchema, createChannelSchema, postMessageSchema, replaceMessageSchema, updateChannelSchema, updateMessageSchema,
  CHANNEL_READ_ONLY, MESSAGE_READ_ONLY, NEW_CHANNEL_READ_ONLY, NEW_MESSAGE_READ_ONLY,
} from './schemas.js';
import {
  channelsStore, isMember, messagesStore, monotonicNow, publicChannel, queryArray, withChannelLock,
  type Channel, type ChannelDoc, type MemberEntry, type Membership, type MessageDoc,
} from './store.js';

export interface ServiceOpts { auth: AuthInfo; depth?: number }
export interface ListResult<T> { data: T[]; total: number }

// ---- helpers ----------------------------------------------------------------------------

/** The event of a chat write, made before the write so that a driver with an outbox stores it
 *  with the write (its id and time are those published). */
function chatEvent(ws: Workspace, type: EventType, data: Record<string, unknown>, opts: ServiceOpts): BusEvent {
  return {
    id: newEventId(), type, app: ws.id, timestamp: ws.nowIso(), data,
    // actorOf only reads req.auth: the same actor whether the change came by REST or not.
    actor: actorOf({ auth: opts.auth } as Request),
    ...(opts.depth !== undefined ? { depth: opts.depth } : {}),
  };
}

/** Publishes a chat write's event, with what the write stored. */
function publish(ctx: AppContext, event: BusEvent, data: Record<string, unknown>) {
  ctx.bus.publish({ ...event, data });
}

export async function loadChannel(ws: Workspace, id: string): Promise<ChannelDoc> {
  const doc = typeof id === 'string' ? await (await channelsStore(ws)).get(id) : undefined;
  if (!doc) throw ApiError.notFound('Channel', String(id));
  return doc as ChannelDoc;
}

/** Members and admins may read and post. */
export function canAccessChannel(channel: Pick<ChannelDoc, 'members'>, auth: AuthInfo): boolean {
  return auth.isAdmin || isMember(channel, auth.userId);
}

function assertMember(channel: ChannelDoc, auth: AuthInfo) {
  if (!canAccessChannel(channel, auth)) throw ApiError.forbidden('Only members of this channel may do this');
}

/** The owner's rights last only while he is a member: leaving ends every right in the channel. */
function isOwner(channel: ChannelDoc, userId: string): boolean {
  return channel._owner === userId && isMember(channel, userId);
}

function assertOwnerOrAdmin(channel: ChannelDoc, auth: AuthInfo, what: string) {
  if (!auth.isAdmin && !isOwner(channel, auth.userId)) throw ApiError.forbidden(`Only the channel owner or an administrator may ${what}`);
}

/** The owner a channel has after its member list changed: the current one while he stays a
 *  member, otherwise the longest-standing member (a channel left empty keeps the last owner's id,
 *  which grants nothing: a member added later by an admin becomes the owner). */
function ownerAfter(channel: ChannelDoc, memberships: Membership[]): string {
  if (memberships.some((m) => m.userId === channel._owner) && isMember(channel, channel._owner)) return channel._owner;
  return memberships[0]?.userId ?? channel._owner;
}

/** Dedupes ids and checks that each names a user; 422 on `field` otherwise. */
async function existingUsers(ws: Workspace, ids: string[], field: string): Promise<string[]> {
  const unique = [...new Set(ids)];
  for (const id of unique) {
    if (!(await findUser(ws, id))) throw ApiError.invalidField(field, 'invalid', `'${field}' names an unknown user '${id}'`);
  }
  return unique;
}

/** Writes a channel's next version with its `channel.updated` event, and publishes it. */
async function saveChannel(ctx: AppContext, ws: Workspace, doc: ChannelDoc, opts: ServiceOpts): Promise<ChannelDoc> {
  const event = chatEvent(ws, 'channel.updated', publicChannel(doc), opts);
  const saved = await (await channelsStore(ws)).replace(doc._id, doc, { event });
  if (!saved) throw ApiError.notFound('Channel', doc._id);
  publish(ctx, event, publicChannel(saved));
  return saved as ChannelDoc;
}

// ---- channels ---------------------------------------------------------------------------

/** The caller's channels (every channel for an admin). */
export async function listChannels(_ctx: AppContext, ws: Workspace, query: StoreQuery, opts: ServiceOpts): Promise<ListResult<Channel>> {
  const q: StoreQuery = opts.auth.isAdmin ? query
    : { ...query, conditions: [{ path: 'members', op: '$eq', values: [opts.auth.userId] }, ...query.conditions] };
  const { data, total } = await (await channelsStore(ws)).find(q);
  return { data: data.map(publicChannel), total };
}

export async function getChannel(_ctx: AppContext, ws: Workspace, id: string, opts: ServiceOpts): Promise<Channel> {
  const channel = await loadChannel(ws, id);
  assertMember(channel, opts.auth);
  return publicChannel(channel);
}

export async function createChannel(ctx: AppContext, ws: Workspace, input: unknown, opts: ServiceOpts): Promise<Channel> {
  const body = parseBody(createChannelSchema, withoutReadOnly(input, NEW_CHANNEL_READ_ONLY));
  const type = body.type ?? 'group';
  const me = opts.auth.userId;
  const others = (await existingUsers(ws, body.members ?? [], 'members')).filter((id) => id !== me);
  if (type === 'group') assertGroupName(body.name);
  if (type === 'direct') {
    if (others.length !== 1) throw ApiError.invalidField('members', 'invalid', 'A direct channel has exactly two members: you and one other user');
    const existing = (await (await channelsStore(ws)).findBy('members', me))
      .find((c) => c.type === 'direct' && isMember(c as ChannelDoc, others[0]));
    if (existing) throw ApiError.conflict('A direct channel between these two users already exists', { channelId: existing._id });
  }
  const now = ws.nowIso();
  const members = [me, ...others];
  const doc: ChannelDoc = {
    _id: newId(),
    name: body.name ?? '',
    type,
    ...(body.description !== undefined ? { description: body.description } : {}),
    members,
    memberships: members.map((userId) => ({ userId, joinedAt: now })),
    _owner: me,
    createdAt: now,
    updatedAt: now,
  };
  const event = chatEvent(ws, 'channel.created', publicChannel(doc), opts);
  const saved = publicChannel(await (await channelsStore(ws)).insert(doc, { event }));
  publish(ctx, event, saved);
  return saved;
}

function assertGroupName(name: string | undefined): void {
  if (!name?.trim()) throw ApiError.invalidField('name', 'required', "A group channel needs a 'name'");
}

/** A change by the owner or an admin: a partial update (`merge`) of `name`, `description`, and
 *  `members` (the whole list; the owner always stays; not for direct channels), or the whole
 *  channel (`replace`): a group's `name` required, `description` removed when absent, and
 *  `members` when absent back to what a creation without them gives, the owner alone (a direct
 *  channel's members are fixed: they may only be repeated). */
export async function updateChannel(ctx: AppContext, ws: Workspace, id: string, input: unknown, opts: ServiceOpts, mode: ChangeMode = 'merge'): Promise<Channel> {
  return withChannelLock(ctx.state.chats, ws, id, async () => {
    const channel = await loadChannel(ws, id);
    assertOwnerOrAdmin(channel, opts.auth, 'change this channel');
    const replace = mode === 'replace';
    const readOnly = replace && channel.type === 'direct' ? [...CHANNEL_READ_ONLY, 'members'] : CHANNEL_READ_ONLY;
    const body = parseBody(updateChannelSchema, withoutReadOnly(input, readOnly, publicChannel(channel)));
    if (replace && channel.type === 'group') assertGroupName(body.name);
    if (channel.type === 'group' && body.name !== undefined && !body.name.trim()) throw ApiError.invalidField('name', 'too_short', "A group channel's 'name' cannot be empty");
    const next: ChannelDoc = { ...channel, updatedAt: ws.nowIso() };
    if (replace) {
      next.name = body.name ?? '';
      delete next.description;
      if (channel.type === 'group') body.members ??= [];
    }
    if (body.name !== undefined) next.name = body.name;
    if (body.description !== undefined) next.description = body.description;
    if (body.members !== undefined) {
      if (channel.type === 'direct') throw ApiError.invalidField('members', 'invalid', 'The members of a direct channel cannot be changed');
      const wanted = (await existingUsers(ws, body.members, 'members')).filter((u) => u !== channel._owner);
      const members = isMember(channel, channel._owner) ? [channel._owner, ...wanted] : wanted;
      const joined = new Map(channel.memberships.map((m) => [m.userId, m.joinedAt]));
      next.members = members;
      next.memberships = members.map((userId) => ({ userId, joinedAt: joined.get(userId) ?? next.updatedAt }));
      next._owner = ownerAfter(channel, next.memberships);
    }
    return publicChannel(await saveChannel(ctx, ws, next, opts));
  });
}

/** Deletes a channel and all its messages (one channel.deleted event, no message events). */
export async function deleteChannel(ctx: AppContext, ws: Workspace, id: string, opts: ServiceOpts): Promise<void> {
  await withChannelLock(ctx.state.chats, ws, id, async () => {
    const channel = await loadChannel(ws, id);
    assertOwnerOrAdmin(channel, opts.auth, 'delete this channel');
    const event = chatEvent(ws, 'channel.deleted', publicChannel(channel), opts);
    await (await channelsStore(ws)).remove(id, { event });
    await (await messagesStore(ws)).removeWhere([{ path: 'channelId', op: '$eq', values: [id] }]);
    publish(ctx, event, event.data);
  });
}

// ---- members ----------------------------------------------------------------------------

async function memberEntry(ws: Workspace, channel: ChannelDoc, m: Membership): Promise<MemberEntry> {
  const user = await findUser(ws, m.userId);
  return { userId: m.userId, name: user?.name ?? '', role: isOwner(channel, m.userId) ? 'owner' : 'member', joinedAt: m.joinedAt };
}

export async function listMembers(_ctx: AppContext, ws: Workspace, channelId: string, query: StoreQuery, opts: ServiceOpts): Promise<ListResult<Record<string, unknown>>> {
  const channel = await loadChannel(ws, channelId);
  assertMember(channel, opts.auth);
  const entries = await Promise.all(channel.memberships.map((m) => memberEntry(ws, channel, m)));
  return queryArray(entries as unknown as Record<string, unknown>[], query, [{ path: 'joinedAt', dir: 1 }]);
}

export async function addMember(ctx: AppContext, ws: Workspace, channelId: string, input: unknown, opts: ServiceOpts): Promise<MemberEntry> {
  return withChannelLock(ctx.state.chats, ws, channelId, async () => {
    const channel = await loadChannel(ws, channelId);
    assertOwnerOrAdmin(channel, opts.auth, 'add members');
    const { userId } = parseBody(addMemberSchema, input);
    if (channel.type === 'direct') throw ApiError.invalidField('userId', 'invalid', 'A direct channel has exactly two members');
    if (!(await findUser(ws, userId))) throw ApiError.notFound('User', userId);
    if (isMember(channel, userId)) throw ApiError.conflict(`User '${userId}' is already a member of this channel`, { field: 'userId' });
    const now = ws.nowIso();
    const membership = { userId, joinedAt: now };
    const memberships = [...channel.memberships, membership];
    const saved = await saveChannel(ctx, ws, {
      ...channel, members: [...channel.members, userId], memberships, _owner: ownerAfter(channel, memberships), updatedAt: now,
    }, opts);
    return memberEntry(ws, saved, membership);
  });
}

/** The owner or an admin removes anyone; a member may remove himself. When the owner goes,
 *  the longest-standing remaining member becomes the owner. */
export async function removeMember(ctx: AppContext, ws: Workspace, channelId: string, userId: string, opts: ServiceOpts): Promise<void> {
  await withChannelLock(ctx.state.chats, ws, channelId, async () => {
    const channel = await loadChannel(ws, channelId);
    if (userId !== opts.auth.userId) assertOwnerOrAdmin(channel, opts.auth, 'remove other members');
    if (!isMember(channel, userId)) throw ApiError.notFound('Member', userId);
    const memberships = channel.memberships.filter((m) => m.userId !== userId);
    await saveChannel(ctx, ws, {
      ...channel, members: channel.members.filter((u) => u !== userId), memberships, _owner: ownerAfter(channel, memberships), updatedAt: ws.nowIso(),
    }, opts);
  });
}

// ---- messages ---------------------------------------------------------------------------

export async function listMessages(_ctx: AppContext, ws: Workspace, channelId: string, query: StoreQuery, opts: ServiceOpts): Promise<ListResult<MessageDoc>> {
  const channel = await loadChannel(ws, channelId);
  assertMember(channel, opts.auth);
  const q: StoreQuery = { ...query, conditions: [{ path: 'channelId', op: '$eq', values: [channelId] }, ...query.conditions] };
  const { data, total } = await (await messagesStore(ws)).find(q);
  return { data: data as MessageDoc[], total };
}

export interface PostMessageInput { channelId: string; text: string; type?: string }

/** Posts a message as `opts.auth` (members and admins). Used by REST, the socket and scenarios. */
export async function postMessage(ctx: AppContext, ws: Workspace, input: PostMessageInput, opts: ServiceOpts): Promise<MessageDoc> {
  const { channelId, ...rest } = (input ?? {}) as PostMessageInput;
  if (typeof channelId !== 'string' || !channelId) throw ApiError.invalidField('channelId', 'required');
  const channel = await loadChannel(ws, channelId);
  assertMember(channel, opts.auth);
  const body = parseBody(postMessageSchema, withoutReadOnly(rest, NEW_MESSAGE_READ_ONLY));
  const now = monotonicNow(ctx.state.chats, ws);
  const doc: MessageDoc = {
    _id: newId(),
    channelId,
    ...messageFields(body),
    author: { _id: opts.auth.userId, name: opts.auth.user.name ?? '' },
    createdAt: now,
    updatedAt: now,
  };
  const event = chatEvent(ws, 'message.created', doc as unknown as Record<string, unknown>, opts);
  const saved = (await (await messagesStore(ws)).insert(doc, { event })) as MessageDoc;
  publish(ctx, event, saved);
  return saved;
}

async function loadMessage(ws: Workspace, id: string): Promise<MessageDoc> {
  const doc = await (await messagesStore(ws)).get(id);
  if (!doc) throw ApiError.notFound('Message', id);
  return doc as MessageDoc;
}

export async function getMessage(_ctx: AppContext, ws: Workspace, id: string, opts: ServiceOpts): Promise<MessageDoc> {
  const message = await loadMessage(ws, id);
  assertMember(await loadChannel(ws, message.channelId), opts.auth);
  return message;
}

/** A message's written part, as posting or a replacement gives it (`type` defaults to `text`). */
function messageFields(body: { text: string; type?: string }): Pick<MessageDoc, 'text' | 'type'> {
  return { text: body.text, type: body.type ?? 'text' };
}

/** Edits a message: its author only, while still a member of the channel. `merge` changes the
 *  fields sent; `replace` makes the message what a post of the body would (`text` required). */
export async function updateMessage(ctx: AppContext, ws: Workspace, id: string, input: unknown, opts: ServiceOpts, mode: ChangeMode = 'merge'): Promise<MessageDoc> {
  return (await messagesStore(ws)).exclusive(id, () => applyMessageUpdate(ctx, ws, id, input, opts, mode));
}

async function applyMessageUpdate(ctx: AppContext, ws: Workspace, id: string, input: unknown, opts: ServiceOpts, mode: ChangeMode): Promise<MessageDoc> {
  const message = await loadMessage(ws, id);
  if (message.author._id !== opts.auth.userId) throw ApiError.forbidden('Only the author may edit a message');
  const channel = await loadChannel(ws, message.channelId);
  if (!isMember(channel, opts.auth.userId)) throw ApiError.forbidden('Only members of this channel may edit its messages');
  const given = withoutReadOnly(input, MESSAGE_READ_ONLY, message);
  const next: MessageDoc = mode === 'replace'
    ? { ...message, ...messageFields(parseBody(replaceMessageSchema, given)), updatedAt: ws.nowIso() }
    : { ...message, ...parseBody(updateMessageSchema, given), updatedAt: ws.nowIso() };
  const event = chatEvent(ws, 'message.updated', next as unknown as Record<string, unknown>, opts);
  const saved = (await (await messagesStore(ws)).replace(id, next, { event })) as MessageDoc | undefined;
  if (!saved) throw ApiError.notFound('Message', id);
  publish(ctx, event, saved);
  return saved;
}

/** Deletes a message: its author or an admin. */
export async function deleteMessage(ctx: AppContext, ws: Workspace, id: string, opts: ServiceOpts): Promise<void> {
  await (await messagesStore(ws)).exclusive(id, async () => {
    const message = await loadMessage(ws, id);
    if (message.author._id !== opts.auth.userId && !opts.auth.isAdmin) throw ApiError.forbidden('Only the author or an administrator may delete a message');
    const event = chatEvent(ws, 'message.deleted', message as unknown as Record<string, unknown>, opts);
    if (!(await (await messagesStore(ws)).remove(id, { event }))) throw ApiError.notFound('Message', id);
    publish(ctx, event, message);
  });
}
