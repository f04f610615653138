// A workspace's clock, set by a test suite: the rules of `PUT / POST advance / DELETE .../clock`
// and who is told when it moves. The clock is kept with the workspace's settings (so it survives
// a restart of an on-disk server, and every process on a shared database reads the same time);
// what keeps timers (scheduled scenarios, webhook retries, delay steps) listens here and looks
// again at what has become due.
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import { advanceClock, setClock, viewClock, type ClockSetting, type ClockView } from '../../core/clock.js';
import { logger } from '../../core/logger.js';

/** What processes on one database tell each other when a workspace's clock moved. */
export const CLOCK_TOPIC = 'clock';

/** Told when a workspace's clock moved. `local`: the change was made in this process (then this
 *  process fires what the move made due, e.g. the cron ticks passed); false: another process on
 *  the same database made it, and fires those itself. */
export type ClockListener = (ws: Workspace, local: boolean) => void | Promise<void>;

/** Listens to the clock moves of every workspace of this server; returns the function that stops. */
export function onClockMove(ctx: AppContext, listener: ClockListener): () => void {
  const set = ctx.state.clock.listeners;
  set.add(listener);
  return () => { set.delete(listener); };
}

/** Tells the listeners (in order, each awaited) that the clock of `ws` moved. */
export async function clockMoved(ctx: AppContext, ws: Workspace, local: boolean): Promise<void> {
  for (const listener of [...ctx.state.clock.listeners]) {
    try {
      await listener(ws, local);
    } catch (err) {
      logger.error({ err, workspace: ws.id }, 'a clock listener failed');
    }
  }
}

async function store(ctx: AppContext, ws: Workspace, next: ClockSetting | undefined): Promise<ClockView> {
  await ws.settings.update((s) => {
    if (next) s.clock = next; else delete s.clock;
  });
  ws.processes.tell(ws.id, CLOCK_TOPIC, {});
  await clockMoved(ctx, ws, true);
  return viewClock(ws.settings.data.clock);
}

export function readClock(ws: Workspace): ClockView {
  return viewClock(ws.settings.data.clock);
}

/** Moves the clock to `now` (epoch ms; default: where it is) and stops or restarts it. */
export function putClock(ctx: AppContext, ws: Workspace, change: { now?: number; frozen?: boolean }): Promise<ClockView> {
  return store(ctx, ws, setClock(ws.settings.data.clock, change));
}

/** Moves the clock `ms` forward (a frozen clock stays frozen). */
export function advance(ctx: AppContext, ws: Workspace, ms: number): Promise<ClockView> {
  return store(ctx, ws, advanceClock(ws.settings.data.clock, ms));
}

/** Back to the machine's time. */
export function realTime(ctx: AppContext, ws: Workspace): Promise<ClockView> {
  return store(ctx, ws, undefined);
}
