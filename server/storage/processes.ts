// What the processes sharing one storage say to each other. On the embedded driver a process is
// alone with its data folder (the folder lock sees to it): nothing is told, every scheduled tick
// is its own. On PostgreSQL several processes serve the same database: they tell each other what
// a module keeps in memory (a scenario's schedule, a clock moved), claim each scheduled tick
// once, count failed logins in one place, and take over the work of a process that is gone.
// Modules use only this interface (a workspace's `processes`, the registry's), never the driver.
import type { Workspace } from './workspace.js';

/** Failed logins counted where every process sees them (the same rules as the in-process limiter). */
export interface SharedLoginCounter {
  begin(workspace: string, email: string, now: () => number): Promise<string>;
  end(id: string, failed: boolean, now: number): Promise<void>;
  clearWorkspace(workspace: string): Promise<void>;
}

export interface ProcessLink {
  /** True when other processes serve the same stores: what one of them writes, the others may
   *  not hear of at once (a wait for a record re-reads now and then). */
  readonly shared: boolean;
  /** This process's name among those sharing the stores; undefined when it is alone. */
  readonly origin: string | undefined;
  /** Failed logins counted across the processes; undefined: each process counts its own. */
  readonly loginLimiter?: SharedLoginCounter;
  /** Tells the other processes that something a module keeps in memory changed in a workspace:
   *  their handler for `topic` (`hear`) runs with `data`. */
  tell(workspace: string, topic: string, data: unknown): void;
  /** Handles what the other processes `tell` about `topic`, one message after another; called
   *  with undefined data when messages may have been missed: then re-read everything the topic
   *  keeps in step. */
  hear(topic: string, handler: (ws: Workspace, data: unknown) => void | Promise<void>): void;
  /** True in exactly one process for a scheduled scenario's tick. */
  claimTick(workspace: string, scenarioId: string, tick: Date): Promise<boolean>;
  /** Of these process names, the ones still alive. */
  liveOrigins(origins: string[]): Promise<Set<string>>;
}

/** A process alone with its stores. */
export const ALONE: ProcessLink = {
  shared: false,
  origin: undefined,
  tell: () => undefined,
  hear: () => undefined,
  claimTick: async () => true,
  liveOrigins: async (origins) => new Set(origins),
};
