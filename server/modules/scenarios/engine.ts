// What makes scenarios run by themselves: cron jobs for schedule triggers (schedule.ts, on the
// workspace's clock), the bus listener for event triggers, and the workspace lifecycle (start,
// replace, delete, shutdown).
import type { AppContext } from '../context.js';
import type { BusEvent } from '../../core/bus.js';
import type { Workspace } from '../../storage/workspace.js';
import { logger } from '../../core/logger.js';
import { safeEnvelope } from '../webhooks/index.js';
import { wantsEvent } from '../webhooks/index.js';
import { Runner, failInterrupted, type RunRequest, type Execution } from './runner.js';
import type { ScenarioDoc } from './schemas.js';
import { ScheduledJob } from './schedule.js';
import { onClockMove } from '../clock/index.js';

export const SCENARIOS = 'scenarios';
/** What processes on one database tell each other when a scenario changed (ProcessLink.tell). */
const SCENARIO_TOPIC = 'scenario';
/** Event-triggered executions one scenario may start per minute; beyond, they are stored as
 *  failed without running. Stops loops the depth bound cannot see (a step calling this server over HTTP). */
export const EVENT_RUNS_PER_MINUTE = 300;

export class ScenarioEngine {
  readonly runner: Runner;
  private jobs = new Map<string, Map<string, ScheduledJob>>();
  private stopped = false;
  private windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly ctx: AppContext) {
    this.runner = new Runner(ctx);
  }

  /** Starts an execution of a scenario now. */
  run(ws: Workspace, scenario: ScenarioDoc, req: RunRequest): Promise<{ execution: Execution; done: Promise<Execution> }> {
    return this.runner.start(ws, scenario, req);
  }

  /** Bus listener: runs every active scenario whose event trigger wants this event. */
  async onEvent(event: BusEvent): Promise<void> {
    if (this.stopped || event.relayed || event.recovered || event.type === 'webhook.test') return;
    const ws = this.ctx.registry.get(event.app);
    if (!ws) return;
    const scenarios = (await (await ws.store(SCENARIOS)).all()) as unknown as ScenarioDoc[];
    for (const s of scenarios) {
      if (!s.active || s.trigger.type !== 'event') continue;
      const trigger = s.trigger as unknown as { events: string[]; filter?: { collection: string } };
      if (!wantsEvent(trigger, event)) continue;
      await this.run(ws, s, {
        trigger: { type: 'event', event: event.type, eventId: event.id, ...(event.collection ? { collection: event.collection } : {}) },
        event: safeEnvelope(event), depth: event.depth ?? 0, runAs: s.runAs,
        ...(this.overRate(ws.id, s._id) ? { refused: `Stopped: more than ${EVENT_RUNS_PER_MINUTE} event-triggered executions of this scenario within a minute (a loop?). No step ran.` } : {}),
      });
    }
  }

  private overRate(wsId: string, scenarioId: string): boolean {
    const key = `${wsId}\u0000${scenarioId}`;
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= 60_000) { w = { start: now, count: 0 }; this.windows.set(key, w); }
    return ++w.count > EVENT_RUNS_PER_MINUTE;
  }

  /** A scenario was changed here (saved, activated, deactivated; undefined: deleted): its cron
   *  job follows, in this process and, on PostgreSQL, in every other one (`refresh` there). */
  changed(ws: Workspace, scenarioId: string, scenario: ScenarioDoc | undefined): void {
    this.sync(ws, scenarioId, scenario);
    ws.processes.tell(ws.id, SCENARIO_TOPIC, { id: scenarioId });
  }

  /** Another process changed a scenario: re-read it and schedule it as stored. Messages are
   *  handled in order and each re-reads, so the last one leaves the schedule as the store has it. */
  private async refresh(ws: Workspace, scenarioId: string): Promise<void> {
    if (this.stopped) return;
    const current = (await (await ws.store(SCENARIOS)).get(scenarioId)) as unknown as ScenarioDoc | undefined;
    this.sync(ws, scenarioId, current);
    if (!current) await this.runner.interrupt({ wsId: ws.id, scenarioId }, 'Interrupted: the scenario was deleted');
  }

  /** Starts, restarts or stops a scenario's cron job to match the stored scenario (undefined: deleted). */
  sync(ws: Workspace, scenarioId: string, scenario: ScenarioDoc | undefined): void {
    const mine = this.jobs.get(ws.id) ?? new Map<string, ScheduledJob>();
    this.jobs.set(ws.id, mine);
    mine.get(scenarioId)?.stop();
    mine.delete(scenarioId);
    if (this.stopped || !scenario?.active || scenario.trigger.type !== 'schedule') return;
    const { cron, timezone } = scenario.trigger as unknown as { cron: string; timezone?: string };
    try {
      // The ticks follow the workspace's clock (schedule.ts). On PostgreSQL every process
      // schedules the scenario; one of them claims each tick.
      const job = new ScheduledJob(ws, cron, timezone, async (tick) => {
        if (this.stopped) return;
        if (!(await ws.processes.claimTick(ws.id, scenarioId, tick))) return;
        const current = (await (await ws.store(SCENARIOS)).get(scenarioId)) as unknown as ScenarioDoc | undefined;
        if (!current?.active || this.stopped) return;
        const { done } = await this.run(ws, current, { trigger: { type: 'schedule', cron, firedAt: tick.toISOString() }, depth: 0, runAs: current.runAs });
        await done;
      });
      mine.set(scenarioId, job);
    } catch (err) {
      logger.error({ err, scenario: scenarioId }, 'could not schedule scenario');
    }
  }

  /** (Re)reads a workspace's scenarios: schedules for the active ones. */
  async load(ws: Workspace): Promise<void> {
    this.unload(ws.id);
    for (const s of (await (await ws.store(SCENARIOS)).all()) as unknown as ScenarioDoc[]) this.sync(ws, s._id, s);
  }

  unload(wsId: string): void {
    for (const job of this.jobs.get(wsId)?.values() ?? []) job.stop();
    this.jobs.delete(wsId);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const wsId of [...this.jobs.keys()]) this.unload(wsId);
    await this.runner.stop('Interrupted: the server is shutting down');
  }

  async start(): Promise<void> {
    this.ctx.bus.subscribe((event) => this.onEvent(event));
    this.ctx.closers.push(() => this.stop());
    // A move of a workspace's clock: the ticks it passed fire (where it was made).
    onClockMove(this.ctx, (ws, local) => { for (const job of this.jobs.get(ws.id)?.values() ?? []) job.clockMoved(local); });
    this.ctx.registry.processes.hear(SCENARIO_TOPIC, (ws, data) => (data ? this.refresh(ws, (data as { id: string }).id) : this.load(ws)));
    await this.ctx.registry.listen({
      opened: async (ws) => { await failInterrupted(ws); await this.load(ws); },
      closing: async (ws) => { this.unload(ws.id); await this.runner.interrupt({ wsId: ws.id }, 'Interrupted: the workspace is closing'); },
      replaced: async (ws) => { await this.runner.interrupt({ wsId: ws.id }, 'Interrupted: the workspace content was replaced'); await this.load(ws); },
    });
  }
}
