// What the realtime module holds for one server: the hub of its sockets, made when it starts.
import type { BaseContext } from '../context.js';
import type { Hub } from './hub.js';

export interface RealtimeState { hub?: Hub }

export function create(_ctx: BaseContext): RealtimeState {
  return {};
}
