// Scenario vocabulary shared by the server and the console (browser-safe): trigger and step
// types and the longest delay (docs/scenarios.md).
export const TRIGGER_TYPES = ['event', 'schedule', 'manual'] as const;
export const STEP_TYPES = ['http', 'record.create', 'record.update', 'record.delete', 'message.send', 'delay'] as const;
export type StepType = (typeof STEP_TYPES)[number];
export const MAX_STEPS = 50;
/** The longest a delay step may wait. */
export const MAX_DELAY_MS = 5 * 60 * 1000;
export const HTTP_STEP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
