// One scheduled scenario's ticks, on its workspace's clock. croner computes the ticks of the
// cron expression; the waiting is done here: a real timer for the time left while the clock
// runs, nothing while it stands still. When the clock is moved forward in this process, every
// tick passed is fired, once, in order (each run starts when the previous one has ended); moved
// backward, the schedule goes on from the new time.
import { Cron } from 'croner';
import type { Workspace } from '../../storage/workspace.js';
import { logger } from '../../core/logger.js';

/** Ticks fired for one move of the clock at most; the later ones of a longer move are skipped. */
export const MAX_TICKS_PER_MOVE = 1000;
/** setTimeout's longest delay; a longer wait wakes up and waits again. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class ScheduledJob {
  private readonly cron: Cron;
  private timer: NodeJS.Timeout | undefined;
  /** The workspace time up to which ticks have been handled. */
  private cursor: number;
  private stopped = false;
  /** A run started by a timer is going on (a tick meanwhile is skipped, as croner's `protect`). */
  private running = false;
  /** Runs of ticks passed by a move, one after another. */
  private chain: Promise<void> = Promise.resolve();

  /** `fire` runs the scenario for a tick and resolves when that run has ended. */
  constructor(private readonly ws: Workspace, pattern: string, timezone: string | undefined, private readonly fire: (tick: Date) => Promise<void>) {
    this.cron = new Cron(pattern, { paused: true, ...(timezone ? { timezone } : {}) });
    this.cursor = ws.now();
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.cron.stop();
  }

  /** The workspace's clock was set or moved. `local`: in this process, which then fires the
   *  ticks passed (another process on the same database fires those of its own move). */
  clockMoved(local: boolean): void {
    if (this.stopped) return;
    const now = this.ws.now();
    if (local && now > this.cursor) {
      const ticks = this.ticksUpTo(now);
      this.cursor = now;
      for (const tick of ticks) this.chain = this.chain.then(() => this.run(tick));
    } else {
      this.cursor = now;
    }
    this.arm();
  }

  /** The ticks after the cursor up to `now` (inclusive), oldest first, at most MAX_TICKS_PER_MOVE. */
  private ticksUpTo(now: number): Date[] {
    const ticks: Date[] = [];
    let next = this.cron.nextRun(new Date(this.cursor));
    while (next && next.getTime() <= now) {
      if (ticks.length === MAX_TICKS_PER_MOVE) {
        logger.warn({ workspace: this.ws.id, pattern: this.cron.getPattern() }, `the clock moved past more than ${MAX_TICKS_PER_MOVE} ticks of a scheduled scenario: the later ones are skipped`);
        break;
      }
      ticks.push(next);
      next = this.cron.nextRun(next);
    }
    return ticks;
  }

  private async run(tick: Date): Promise<void> {
    if (this.stopped) return;
    try {
      await this.fire(tick);
    } catch (err) {
      logger.error({ err, workspace: this.ws.id }, 'scheduled scenario run failed to start');
    }
  }

  /** A real timer for the next tick, unless the clock stands still. */
  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    const clock = this.ws.settings.data.clock;
    if (clock && 'frozenAt' in clock) return;
    const next = this.cron.nextRun(new Date(this.cursor));
    if (!next) return;
    const left = next.getTime() - this.ws.now();
    this.timer = setTimeout(() => this.onTimer(), Math.min(MAX_TIMER_MS, Math.max(0, left)));
    this.timer.unref?.();
  }

  private onTimer(): void {
    this.timer = undefined;
    if (this.stopped) return;
    const now = this.ws.now();
    const next = this.cron.nextRun(new Date(this.cursor));
    if (!next || next.getTime() > now) { this.arm(); return; } // woke early (a long wait, or the clock moved back)
    // Due: the latest tick passed (a late timer fires once, as croner does).
    let tick = next;
    for (let later = this.cron.nextRun(tick); later && later.getTime() <= now; later = this.cron.nextRun(later)) tick = later;
    this.cursor = tick.getTime();
    this.arm();
    if (this.running) return; // the previous run is still going: this tick is skipped
    this.running = true;
    void this.run(tick).finally(() => { this.running = false; });
  }
}
