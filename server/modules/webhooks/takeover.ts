// Several processes on one PostgreSQL database: a pending webhook delivery belongs to the process
// that scheduled it (its `owner`, the process's relay origin). Each process holds a sign of life
// in the database for as long as its listening connection lives (the registry's processes,
// liveOrigins); every few seconds each process takes over the pending deliveries whose owner has
// none (the process died, or lost its connection), so every acknowledged event's deliveries are
// made while any process is up. A delivery keeps its event id (`webhook-id`), so a receiver
// de-duplicates the rare second send (a process that died between the receiver's 2xx and
// recording it).
import type { AppContext } from '../context.js';
import { logger } from '../../core/logger.js';
import type { Deliverer } from './delivery.js';

/** How often each process looks for deliveries left by a process that is gone. */
export const TAKEOVER_INTERVAL_MS = 2000;

export async function startTakeover(ctx: AppContext, deliverer: Deliverer): Promise<void> {
  const processes = ctx.registry.processes;
  if (!processes.shared || !processes.origin) return;
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      for (const { _id } of ctx.registry.list()) {
        const ws = ctx.registry.get(_id);
        if (!ws || ws.busy) continue;
        const taken = await deliverer.takeOver(ws, async (owners) => {
          const live = await processes.liveOrigins(owners.filter(Boolean));
          return new Set(owners.filter((o) => !live.has(o)));
        });
        if (taken) logger.info({ workspace: ws.id, deliveries: taken }, 'took over webhook deliveries left by a process that is gone');
      }
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'could not look for webhook deliveries left by other processes');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void sweep(), TAKEOVER_INTERVAL_MS);
  timer.unref();
  ctx.closers.push(() => clearInterval(timer));
}
