// What the clock module holds for one server: who listens to the clock moves of its workspaces.
import type { BaseContext } from '../context.js';
import type { ClockListener } from './service.js';

export interface ClockState { listeners: Set<ClockListener> }

export function create(_ctx: BaseContext): ClockState {
  return { listeners: new Set() };
}
