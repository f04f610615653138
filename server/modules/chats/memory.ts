// What the chats module holds for one server, per workspace: the last message time it handed out
// (times never repeat) and the write locks of its channels.
import type { Workspace } from '../../storage/workspace.js';
import type { BaseContext } from '../context.js';

export interface ChatsOfWorkspace {
  /** Epoch ms of the last timestamp handed out (monotonicNow). */
  lastStamp: number;
  /** The tail of each channel's read-modify-write queue, by channel id (withChannelLock). */
  locks: Map<string, Promise<unknown>>;
}

export interface ChatsState { workspaces: WeakMap<Workspace, ChatsOfWorkspace> }

export function create(_ctx: BaseContext): ChatsState {
  return { workspaces: new WeakMap() };
}

/** The chats state of one workspace, made on first use. */
export function chatsOf(state: ChatsState, ws: Workspace): ChatsOfWorkspace {
  let mine = state.workspaces.get(ws);
  if (!mine) { mine = { lastStamp: 0, locks: new Map() }; state.workspaces.set(ws, mine); }
  return mine;
}
