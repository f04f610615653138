// What the faults module holds for one server: per workspace, the live state of its current
// rules (how often each has applied in this process, each rule's seeded random sequence).
import type { Workspace } from '../../storage/workspace.js';
import type { BaseContext } from '../context.js';
import type { Live } from './service.js';

export interface FaultsState { live: WeakMap<Workspace, Live> }

export function create(_ctx: BaseContext): FaultsState {
  return { live: new WeakMap() };
}
