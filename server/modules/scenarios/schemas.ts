// Scenario bodies: the loose shape accepted when saving a draft, and the full check run on
// activation, on a manual run and when an active scenario is edited.
import { z } from 'zod';
import { Cron } from 'croner';
import type { FieldError } from '../../shared/error-codes.js';
import { EventFilter, EventPatterns, isHttpUrl } from '../webhooks/index.js';
import { checkExpression, templateExpressions } from './templates.js';
import { zodFieldErrors } from '../../core/validation-messages.js';

import { HTTP_STEP_METHODS, MAX_DELAY_MS, MAX_STEPS, STEP_TYPES, TRIGGER_TYPES, type StepType } from '../../shared/scenarios.js';

export { MAX_DELAY_MS, MAX_STEPS, STEP_TYPES, TRIGGER_TYPES, type StepType };

const trigger = z.looseObject({ type: z.enum(TRIGGER_TYPES) });
const step = z.looseObject({ type: z.string().min(1).max(64) });

/** `POST /scenarios/{id}/run`'s optional body: a sample event for `{{event...}}` (the console
 *  prefills one from an event trigger). Its id, time and workspace are the server's. */
export const RunBody = z.object({
  event: z.object({
    type: z.string().min(1).max(100).optional(),
    collection: z.string().min(1).max(200).optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  }).optional(),
});

export const NewScenarioBody = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  active: z.boolean().optional(),
  trigger: trigger.optional(),
  steps: z.array(step).max(MAX_STEPS).optional(),
});

export const ScenarioChangesBody = z.object({
  name: z.string().min(1).max(200).optional(),
  description: z.string().max(2000).optional(),
  active: z.boolean().optional(),
  trigger: trigger.optional(),
  steps: z.array(step).max(MAX_STEPS).optional(),
});

export type Trigger = { type: (typeof TRIGGER_TYPES)[number]; [k: string]: unknown };
export type Step = { type: string; [k: string]: unknown };

/** A scenario as it is stored, and so as an import or a seed may give it: a draft's shape with
 *  every part the engine reads present (a trigger, a list of steps, `active`). Whether an active
 *  one can run is scenarioProblems' question, which needs the workspace's secret names. */
export const StoredScenario = z.object({
  _id: z.string().min(1).max(64),
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  active: z.boolean().default(false),
  trigger: trigger.default({ type: 'manual' }),
  steps: z.array(step).max(MAX_STEPS).default([]),
  /** The admin the scenario acts as: whoever activated it last. */
  runAs: z.string().min(1).optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export interface ScenarioDoc extends Omit<z.infer<typeof StoredScenario>, 'trigger' | 'steps'> { trigger: Trigger; steps: Step[] }
/** A scenario as the API shows it (whom it acts as stays inside). */
export type Scenario = Omit<ScenarioDoc, 'runAs'>;

// ---- the full check ----------------------------------------------------------------------

const EventTrigger = z.strictObject({ type: z.literal('event'), events: EventPatterns, filter: EventFilter.optional() });
const ScheduleTrigger = z.strictObject({ type: z.literal('schedule'), cron: z.string().min(1).max(200), timezone: z.string().max(64).optional() });
const ManualTrigger = z.strictObject({ type: z.literal('manual') });

const text = z.string().min(1).max(2048);
const headers = z.record(z.string().min(1).max(256), z.string().max(8192));
const data = z.union([z.record(z.string(), z.unknown()), z.string()]);

const STEP_SCHEMAS: Record<StepType, z.ZodType> = {
  http: z.strictObject({
    type: z.literal('http'),
    method: z.enum(HTTP_STEP_METHODS).optional(),
    url: text,
    headers: headers.optional(),
    body: z.unknown().optional(),
  }),
  'record.create': z.strictObject({ type: z.literal('record.create'), collection: text, data }),
  'record.update': z.strictObject({ type: z.literal('record.update'), collection: text, id: text, data }),
  'record.delete': z.strictObject({ type: z.literal('record.delete'), collection: text, id: text }),
  'message.send': z.strictObject({ type: z.literal('message.send'), channelId: text, text: z.string().min(1).max(10_000), messageType: z.string().min(1).max(32).optional() }),
  delay: z.strictObject({ type: z.literal('delay'), ms: z.number().int().min(0).max(MAX_DELAY_MS) }),
};

/** Everything wrong with a scenario, as field errors (`trigger.cron`, `steps.2.url`, ...). */
export function scenarioProblems(s: { trigger: Trigger; steps: Step[] }, secretNames: Set<string>, available: (t: StepType) => boolean): FieldError[] {
  const errors: FieldError[] = [];
  const push = (field: string, reason: FieldError['reason'], message: string) => errors.push({ field, reason, message });

  const triggerSchema = s.trigger.type === 'event' ? EventTrigger : s.trigger.type === 'schedule' ? ScheduleTrigger : ManualTrigger;
  collect(triggerSchema.safeParse(s.trigger), s.trigger, 'trigger', errors);
  if (s.trigger.type === 'schedule' && typeof s.trigger.cron === 'string') {
    const problem = cronProblem(s.trigger.cron, s.trigger.timezone as string | undefined);
    if (problem) push('trigger.cron', 'format', `'trigger.cron': ${problem}`);
  }

  if (s.steps.length === 0) push('steps', 'too_short', "'steps': a scenario needs at least one step");
  s.steps.forEach((st, i) => {
    const field = `steps.${i}`;
    if (!(STEP_TYPES as readonly string[]).includes(st.type)) {
      push(`${field}.type`, 'enum', `'${field}.type': unknown step type '${st.type}'; use one of ${STEP_TYPES.join(', ')}`);
      return;
    }
    const type = st.type as StepType;
    if (!available(type)) {
      push(`${field}.type`, 'invalid', `'${field}.type': step type ${type} is not available yet`);
      return;
    }
    collect(STEP_SCHEMAS[type].safeParse(st), st, field, errors);
    for (const expr of templateExpressions({ ...st, type: undefined })) {
      const why = checkExpression(expr, i, secretNames);
      if (why) push(field, 'invalid', `'${field}': ${why}`);
    }
    if (type === 'http' && typeof st.url === 'string' && templateExpressions(st.url).length === 0 && !isHttpUrl(st.url)) {
      push(`${field}.url`, 'format', `'${field}.url': must be an absolute http:// or https:// URL`);
    }
  });
  return errors;
}

/** Why a cron pattern is unusable (undefined when it is fine). Seconds are an optional 6th field. */
export function cronProblem(pattern: string, timezone?: string): string | undefined {
  try {
    const job = new Cron(pattern, { paused: true, ...(timezone ? { timezone } : {}) });
    const next = job.nextRun();
    job.stop();
    return next ? undefined : 'this pattern never fires';
  } catch (err) {
    return (err as Error).message;
  }
}

function collect(result: { success: boolean; error?: z.ZodError }, input: unknown, prefix: string, errors: FieldError[]) {
  if (result.success || !result.error) return;
  errors.push(...zodFieldErrors(result.error, input, prefix));
}
