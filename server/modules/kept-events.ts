// Events kept with their writes by a storage engine without an outbox (the embedded stores:
// storage/embedded/kept-events.ts): from the start on, every workspace's writes keep the events
// they publish; an event is settled once the listeners owed it (webhooks storing its
// deliveries) are done with it; and the events a previous run kept but never settled (a kill -9
// between the answer and storing the deliveries) are published again, marked recovered, as
// each workspace opens. On PostgreSQL the outbox does this (storage/pg/outbox.ts).
import type { AppContext } from './context.js';
import { logger } from '../core/logger.js';

export async function startKeptEvents(ctx: AppContext): Promise<void> {
  if (ctx.bus.settled) return; // the engine settles events itself (PostgreSQL's outbox)
  ctx.bus.settled = (event) => ctx.registry.get(event.app)?.storage.eventSettled?.(event.id);
  await ctx.registry.listen({
    opened: async (ws) => {
      const events = await ws.storage.keepEvents?.() ?? [];
      for (const event of events) ctx.bus.publish({ ...event, outboxed: true, recovered: true });
      if (events.length) logger.info({ workspace: ws.id, events: events.length }, 'published again the events of writes a previous run acknowledged but never dispatched');
    },
  });
}
