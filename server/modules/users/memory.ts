// What the users module holds for one server: what ends with an account (sessions, reset
// links), supplied by the sign-in side when the server is assembled (modules/server-state.ts).
import type { BaseContext } from '../context.js';
import type { AccountEnds } from './service.js';

export interface UsersState { ends: AccountEnds }

export function create(_ctx: BaseContext, ends: AccountEnds): UsersState {
  return { ends };
}
