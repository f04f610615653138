// A workspace's clock: what "now" is inside one workspace. By default it is the machine's time;
// a test suite may set it, freeze it and move it (`/api/workspaces/{app_id}/clock`). The setting
// is a small value kept with the workspace's settings, so that every process sharing the
// workspace reads the same time; real timers stay real, and only the workspace's notion of now
// moves. Everything time-based in a workspace asks `clockNow` (through `Workspace.now()`).

/** The stored setting. Frozen: time stands at `frozenAt` (epoch ms). Running: the machine's time
 *  plus `offsetMs`. No setting at all: the machine's time. */
export type ClockSetting = { frozenAt: number } | { offsetMs: number };

/** Epoch milliseconds of a clock setting (undefined: real time). */
export function clockNow(setting: ClockSetting | undefined): number {
  if (!setting) return Date.now();
  if ('frozenAt' in setting) return setting.frozenAt;
  return Date.now() + setting.offsetMs;
}

/** What `GET .../clock` answers. */
export interface ClockView {
  /** The workspace's time now (ISO 8601). */
  now: string;
  /** True while time stands still. */
  frozen: boolean;
  /** How far the workspace's time is ahead of the machine's (negative: behind), in ms. */
  offsetMs: number;
  /** True when the workspace follows the machine's time (no clock set). */
  real: boolean;
}

export function viewClock(setting: ClockSetting | undefined): ClockView {
  const real = Date.now();
  const now = clockNow(setting);
  return { now: new Date(now).toISOString(), frozen: !!setting && 'frozenAt' in setting, offsetMs: now - real, real: !setting };
}

/** The setting after `PUT .../clock { now?, frozen? }`: `now` moves the clock there (default:
 *  where it is), `frozen` stops or restarts it (default: as it is). */
export function setClock(current: ClockSetting | undefined, change: { now?: number; frozen?: boolean }): ClockSetting {
  const at = change.now ?? clockNow(current);
  const frozen = change.frozen ?? (!!current && 'frozenAt' in current);
  return frozen ? { frozenAt: at } : { offsetMs: at - Date.now() };
}

/** The setting after `POST .../clock/advance { ms }`: a frozen clock stays frozen, `ms` later. */
export function advanceClock(current: ClockSetting | undefined, ms: number): ClockSetting {
  if (current && 'frozenAt' in current) return { frozenAt: current.frozenAt + ms };
  return { offsetMs: (current?.offsetMs ?? 0) + ms };
}
