// What the workspaces module holds for one server: the idle deadlines of its forks (its
// workspaces are distinct objects, so two servers in one process never mix them) and the timer
// that deletes the expired ones, made when the first deadline is set; and, on an in-memory start,
// the first admin being stored (first-admin.ts).
import type { Workspace } from '../../storage/workspace.js';
import type { BaseContext } from '../context.js';
import type { Expiry, Sweeper } from './fork-ttl.js';

export interface WorkspacesState { expiries: WeakMap<Workspace, Expiry>; sweeper?: Sweeper; firstAdmins: WeakMap<Workspace, Promise<void>> }

export function create(_ctx: BaseContext): WorkspacesState {
  return { expiries: new WeakMap(), firstAdmins: new WeakMap() };
}
