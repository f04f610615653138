// What the request-log module holds for one server: the live tails open on it.
import type { BaseContext } from '../context.js';
import type { Tail } from './tail.js';

export interface RequestLogState { tails: Set<Tail> }

export function create(_ctx: BaseContext): RequestLogState {
  return { tails: new Set() };
}
