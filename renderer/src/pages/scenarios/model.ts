// The scenario editor's model without React: the shapes the API answers, blank steps per type,
// the JSON view's round trip, and where a 422's field errors belong (the trigger, step N, or the
// scenario as a whole).
import { ApiError } from '../../api/client';
import { TRIGGER_TYPES as TRIGGERS } from '../../../../server/shared/scenarios';

export { STEP_TYPES, MAX_DELAY_MS, HTTP_STEP_METHODS as HTTP_METHODS } from '../../../../server/shared/scenarios';
/** The server's trigger types, in the order the console offers them. */
export const TRIGGER_TYPES = ['manual', 'event', 'schedule'] as const satisfies ReadonlyArray<(typeof TRIGGERS)[number]>;

import type { Execution, Scenario, Step, StepResult, Trigger } from '../../data/types';

export type { Execution, Scenario, Step, StepResult, Trigger };

/** What the editor holds and saves: the editable part of a scenario. */
export interface Draft { name: string; description: string; trigger: Trigger; steps: Step[] }

export function draftOf(s: Scenario): Draft {
  return { name: s.name, description: s.description ?? '', trigger: s.trigger ?? { type: 'manual' }, steps: s.steps ?? [] };
}

/** The body of a save: an empty description is left out rather than stored as ''. */
export function bodyOf(d: Draft): Record<string, unknown> {
  return { name: d.name, ...(d.description ? { description: d.description } : {}), trigger: d.trigger, steps: d.steps };
}

export function blankStep(type: string): Step {
  switch (type) {
    case 'http': return { type, method: 'POST', url: '' };
    case 'record.create': return { type, collection: '', data: {} };
    case 'record.update': return { type, collection: '', id: '', data: {} };
    case 'record.delete': return { type, collection: '', id: '' };
    case 'message.send': return { type, channelId: '', text: '' };
    case 'delay': return { type, ms: 1000 };
    default: return { type };
  }
}

export function blankTrigger(type: string): Trigger {
  if (type === 'event') return { type, events: ['record.created'] };
  if (type === 'schedule') return { type, cron: '*/5 * * * *' };
  return { type: 'manual' };
}

/** The JSON view's text of a draft. */
export function draftToJson(d: Draft): string {
  return JSON.stringify(bodyOf(d), null, 2);
}

/** The JSON view's text back into a draft, or the reason it cannot be one. Fields the forms do
 *  not know are kept as they are (the server says whether they are allowed). */
export function draftFromJson(text: string): { draft?: Draft; error?: string } {
  let v: unknown;
  try { v = JSON.parse(text); } catch (e) { return { error: `Not JSON: ${(e as Error).message}` }; }
  if (!isObject(v)) return { error: 'The scenario must be a JSON object' };
  if (typeof v.name !== 'string') return { error: "'name' must be a string" };
  if (v.description !== undefined && typeof v.description !== 'string') return { error: "'description' must be a string" };
  const trigger = v.trigger ?? { type: 'manual' };
  if (!isObject(trigger) || typeof trigger.type !== 'string') return { error: "'trigger' must be an object with a 'type'" };
  const steps = v.steps ?? [];
  if (!Array.isArray(steps)) return { error: "'steps' must be a list" };
  for (const [i, s] of steps.entries()) {
    if (!isObject(s) || typeof s.type !== 'string') return { error: `'steps.${i}' must be an object with a 'type'` };
  }
  const unknown = Object.keys(v).filter((k) => !['name', 'description', 'trigger', 'steps'].includes(k));
  if (unknown.length) return { error: `Unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')}: a scenario has name, description, trigger and steps` };
  return { draft: { name: v.name, description: (v.description as string | undefined) ?? '', trigger: trigger as Trigger, steps: steps as Step[] } };
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface FieldProblem { field: string; message: string }
/** A 422's problems sorted by where the editor shows them. `sub` is the path inside the trigger
 *  or the step (`url`, `headers.x-a`, '' for the step itself). */
export interface PlacedErrors {
  trigger: Array<FieldProblem & { sub: string }>;
  steps: Map<number, Array<FieldProblem & { sub: string }>>;
  scenario: FieldProblem[];
}

export function placeErrors(error: unknown): PlacedErrors {
  const out: PlacedErrors = { trigger: [], steps: new Map(), scenario: [] };
  if (!(error instanceof ApiError) || error.status !== 422) return out;
  const list = (error.details.errors as Array<{ field: string; reason: string; message?: string }> | undefined)
    ?? (error.details.field ? [{ field: error.details.field as string, reason: String(error.details.reason ?? ''), message: error.message }] : []);
  for (const e of list) {
    const message = e.message ?? e.reason;
    const step = /^steps\.(\d+)(?:\.(.*))?$/.exec(e.field);
    if (step) {
      const i = Number(step[1]);
      out.steps.set(i, [...(out.steps.get(i) ?? []), { field: e.field, sub: step[2] ?? '', message }]);
    } else if (e.field === 'trigger' || e.field.startsWith('trigger.')) {
      out.trigger.push({ field: e.field, sub: e.field.slice('trigger.'.length), message });
    } else {
      out.scenario.push({ field: e.field, message });
    }
  }
  return out;
}

/** The first message about one field of a step or the trigger (`url`, `headers`...), for its input. */
export function messageFor(problems: Array<{ sub: string; message: string }> | undefined, sub: string): string | undefined {
  return problems?.find((p) => p.sub === sub || p.sub.startsWith(`${sub}.`))?.message;
}

export function triggerSummary(t: Trigger): string {
  if (t.type === 'event') {
    const events = Array.isArray(t.events) ? (t.events as string[]).join(', ') : '';
    const coll = isObject(t.filter) && t.filter.collection ? ` · ${String(t.filter.collection)}` : '';
    return `on ${events || '(no event)'}${coll}`;
  }
  if (t.type === 'schedule') return `every ${String(t.cron ?? '?')}${t.timezone ? ` (${String(t.timezone)})` : ''}`;
  return t.type === 'manual' ? 'manual' : t.type;
}

export type ShownStep = StepResult | { type: string; status: 'running' | 'pending'; output: null; error: null };

/** What each step shows in an execution: its result, or `running` / `pending` for the steps
 *  (of the scenario as it is now) that a running execution has not reached. */
export function stepStatuses(exec: Execution, steps: Step[]): ShownStep[] {
  const out: ShownStep[] = [...exec.steps];
  if (exec.status === 'running') {
    for (let i = exec.steps.length; i < steps.length; i++) out.push({ type: steps[i].type, status: i === exec.steps.length ? 'running' : 'pending', output: null, error: null });
  }
  return out;
}

/** A JSON field whose text does not parse: kept in the draft so the editor can say so at its
 *  step and refuse to save, instead of silently keeping an older value. */
export class InvalidJson {
  constructor(readonly text: string, readonly reason: string) {}
}

/** Problems the editor finds before asking the server: JSON fields that do not parse. */
export function localProblems(d: Draft): PlacedErrors {
  const out: PlacedErrors = { trigger: [], steps: new Map(), scenario: [] };
  d.steps.forEach((s, i) => {
    for (const [k, v] of Object.entries(s)) {
      if (v instanceof InvalidJson) out.steps.set(i, [...(out.steps.get(i) ?? []), { field: `steps.${i}.${k}`, sub: k, message: `'${k}' is not valid JSON: ${v.reason}` }]);
    }
  });
  return out;
}

export const hasProblems = (p: PlacedErrors) => p.trigger.length > 0 || p.steps.size > 0 || p.scenario.length > 0;

/** A JSON field's text as the draft keeps it: the parsed value, a template string kept as text
 *  (`{{event.data}}`), or InvalidJson. `stringsAllowed` for fields that take text too. */
export function parseJsonField(text: string, stringsAllowed: boolean): unknown {
  const t = text.trim();
  try {
    return JSON.parse(t);
  } catch (e) {
    if (stringsAllowed && (t.startsWith('{{') || !/^[[{"]/.test(t))) return text;
    return new InvalidJson(text, (e as Error).message);
  }
}

/** The text a JSON field starts with for a value. */
export function jsonFieldText(v: unknown): string {
  if (v instanceof InvalidJson) return v.text;
  if (typeof v === 'string') return v;
  return v === undefined ? '' : JSON.stringify(v, null, 2);
}
