// The chats stores of a workspace (`channels`, `messages`), the documents they hold, how the
// API shows them, and small helpers the service needs (per-channel write lock, a clock that
// never repeats, list queries over an in-memory array).
import type { Workspace } from '../../storage/workspace.js';
import { withIndexes, type Store } from '../../storage/store.js';
import { queryDocs, type Doc, type SortKey, type StoreQuery } from '../../storage/query.js';
import type { ChannelType } from './schemas.js';
import { chatsOf, type ChatsState } from './memory.js';

/** A member's entry; the role is derived from the channel's `_owner`. */
export interface Membership { userId: string; joinedAt: string }

export interface ChannelDoc {
  _id: string;
  name: string;
  type: ChannelType;
  description?: string;
  /** User ids, in join order (indexed: "my channels" is one index lookup). */
  members: string[];
  /** When each member joined; internal, never shown (GET /members shows it per member). */
  memberships: Membership[];
  _owner: string;
  createdAt: string;
  updatedAt: string;
  [key: string]: unknown;
}

export interface Channel extends Omit<ChannelDoc, 'memberships'> { memberships?: never }

export interface MessageDoc {
  _id: string;
  channelId: string;
  text: string;
  type: string;
  author: { _id: string; name: string };
  createdAt: string;
  updatedAt: string;
  [key: string]: unknown;
}

export interface MemberEntry { userId: string; name: string; role: 'owner' | 'member'; joinedAt: string }

export async function channelsStore(ws: Workspace): Promise<Store> {
  return withIndexes(await ws.store('channels'), [{ fieldName: 'members' }]);
}

export async function messagesStore(ws: Workspace): Promise<Store> {
  return withIndexes(await ws.store('messages'), [{ fieldName: 'channelId' }]);
}

/** The channel as the API shows it (also works on a projected document). */
export function publicChannel(doc: Record<string, unknown>): Channel {
  const { memberships: _internal, ...rest } = doc;
  return rest as unknown as Channel;
}

export function isMember(channel: Pick<ChannelDoc, 'members'>, userId: string): boolean {
  return Array.isArray(channel.members) && channel.members.includes(userId);
}

/** The workspace's time as an ISO timestamp strictly later than the previous one this server
 *  handed out in that workspace, so that "newest first" never depends on random ids when two
 *  messages share a millisecond (or the workspace's clock stands still). */
export function monotonicNow(state: ChatsState, ws: Workspace): string {
  const mine = chatsOf(state, ws);
  const now = ws.now();
  const stamp = now > mine.lastStamp ? now : mine.lastStamp + 1;
  mine.lastStamp = stamp;
  return new Date(stamp).toISOString();
}

/** Runs read-modify-write steps on one channel one at a time (member adds must not be lost). */
export async function withChannelLock<T>(state: ChatsState, ws: Workspace, channelId: string, fn: () => Promise<T>): Promise<T> {
  const { locks } = chatsOf(state, ws);
  const previous = locks.get(channelId) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const settled = run.catch(() => undefined);
  locks.set(channelId, settled);
  void settled.then(() => { if (locks.get(channelId) === settled) locks.delete(channelId); });
  return run;
}

/** Applies a parsed list query to a small array of objects without ids (a channel's members). */
export function queryArray<T extends Record<string, unknown>>(items: T[], q: StoreQuery, defaultSort: SortKey[]): { data: Record<string, unknown>[]; total: number } {
  // Positional ids keep the order stable among ties; they are not part of the answer.
  const docs = items.map((item, i) => ({ ...item, _id: String(i).padStart(8, '0') }) as Doc);
  const { data, total } = queryDocs(docs, q, defaultSort);
  return { data: data.map(({ _id: _index, ...rest }) => rest), total };
}
