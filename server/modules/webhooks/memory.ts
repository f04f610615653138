// What the webhooks module holds for one server: its deliverer (the delivery queue and its
// retries), made on first use.
import type { BaseContext } from '../context.js';
import type { Deliverer } from './delivery.js';

export interface WebhooksState { deliverer?: Deliverer }

export function create(_ctx: BaseContext): WebhooksState {
  return {};
}
