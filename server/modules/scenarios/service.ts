// Scenario rules without HTTP: drafts are saved loosely and checked in full on activation, on a
// manual run and whenever an active scenario is edited; the engine is told of every change.
import { randomUUID } from 'node:crypto';
import type { AuthInfo } from '../caller.js';
import type { Workspace } from '../../storage/workspace.js';
import type { Doc, StoreQuery } from '../../storage/query.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { secretNames } from '../credentials/index.js';
import { parseBody } from '../../core/validate.js';
import { checkKeys } from '../../core/keys.js';
import { SERVER_FIELDS, withoutReadOnly } from '../../core/read-only.js';
import { replacedDoc, type ChangeMode } from '../../core/change-mode.js';
import { NewScenarioBody, ScenarioChangesBody, scenarioProblems, type Scenario, type ScenarioDoc, type StepType, type Step, type Trigger } from './schemas.js';

export type { Scenario };
import { EXECUTIONS, executionStore, type Execution } from './runner.js';
import { SCENARIOS, type ScenarioEngine } from './engine.js';


export interface ScenarioInput { name?: string; description?: string; active?: boolean; trigger?: Trigger; steps?: Step[] }

/** Step types whose service is available (all of them, now that database and chats expose theirs). */
export const stepAvailable = (_t: StepType) => true;

export function publicScenario(doc: Doc | ScenarioDoc): Scenario {
  const { runAs: _hidden, ...rest } = doc as ScenarioDoc;
  return rest;
}

async function scenarioStore(ws: Workspace) { return ws.store(SCENARIOS); }

export async function getScenarioDoc(ws: Workspace, id: string): Promise<ScenarioDoc> {
  const doc = (await (await scenarioStore(ws)).get(id));
  if (!doc) throw ApiError.notFound('Scenario', id);
  return doc as unknown as ScenarioDoc;
}

export async function listScenarios(ws: Workspace, q: StoreQuery): Promise<{ data: Scenario[]; total: number }> {
  const { data, total } = await (await scenarioStore(ws)).find({ ...q, fields: undefined });
  return {
    total,
    data: data.map((d) => {
      const pub = publicScenario(d);
      if (!q.fields) return pub;
      const out: Record<string, unknown> = { _id: pub._id };
      for (const f of q.fields) if (f in pub) out[f] = (pub as unknown as Record<string, unknown>)[f];
      return out as unknown as Scenario;
    }),
  };
}

/** 422 with every problem when the scenario cannot run as it is. */
export async function assertRunnable(ws: Workspace, s: { trigger: Trigger; steps: Step[] }): Promise<void> {
  const problems = scenarioProblems(s, await secretNames(ws), stepAvailable);
  if (problems.length) throw ApiError.validation(problems);
}

/** A checked body (server-managed fields already refused: a change may only repeat their
 *  current value) whose keys the store can hold, as the service's input. */
function storable<T extends { trigger?: unknown; steps?: unknown }>(input: T): Omit<T, 'trigger' | 'steps'> & { trigger?: Trigger; steps?: Step[] } {
  assertStorableKeys(input);
  return { ...input, trigger: input.trigger as Trigger | undefined, steps: input.steps as Step[] | undefined };
}

/** Drafts are stored loosely: a `$` or dotted key anywhere in the trigger or the steps is a 422
 *  naming its path (`steps.0.body.$set`), instead of the store's refusal, which names none. */
function assertStorableKeys(body: { trigger?: unknown; steps?: unknown }): void {
  const parts: Record<string, unknown> = {};
  if (body.trigger !== undefined) parts.trigger = body.trigger;
  if (body.steps !== undefined) parts.steps = body.steps;
  const errors = checkKeys(parts).map((e) => ({ ...e, field: e.field.replace(/\[(\d+)\]/g, '.$1') }));
  if (errors.length) throw ApiError.validation(errors);
}

/** Creates an inactive scenario from a client's body. */
export async function createScenario(ws: Workspace, body: unknown): Promise<Scenario> {
  const input = storable(parseBody(NewScenarioBody, withoutReadOnly(body, SERVER_FIELDS)));
  if (input.active === true) throw activeIsReadOnly();
  const now = ws.nowIso();
  const doc: ScenarioDoc = { _id: newId(), ...scenarioFields(input, false), createdAt: now, updatedAt: now };
  return publicScenario(await (await scenarioStore(ws)).insert(doc as unknown as Doc));
}

/** A scenario's described part, as a creation or a replacement gives it: the trigger defaults
 *  to a manual one, the steps to none, the description is left out when absent. (`active` is
 *  changed by activation only; whom it runs as is the server's.) */
function scenarioFields(input: ScenarioInput & { name: string }, active: boolean): Pick<ScenarioDoc, 'name' | 'description' | 'active' | 'trigger' | 'steps'> {
  return {
    name: input.name, ...(input.description !== undefined ? { description: input.description } : {}),
    active, trigger: input.trigger ?? { type: 'manual' }, steps: input.steps ?? [],
  };
}

/** The keys of a scenario's described part (`active` there only keeps its value). */
const SCENARIO_FIELDS = ['name', 'description', 'active', 'trigger', 'steps'];

/** A change: a partial update (`merge`) or the whole scenario (`replace`: `name` required, the
 *  description removed, the trigger and steps back to their creation defaults when absent;
 *  `active` and whom it runs as kept). An active scenario is checked in full (422 leaves it
 *  unchanged) and re-scheduled. */
export async function updateScenario(ws: Workspace, engine: ScenarioEngine, id: string, body: unknown, mode: ChangeMode = 'merge'): Promise<Scenario> {
  // Alone among the changes to this scenario: concurrent changes apply one after another.
  return (await scenarioStore(ws)).exclusive(id, () => applyScenarioUpdate(ws, engine, id, body, mode));
}

async function applyScenarioUpdate(ws: Workspace, engine: ScenarioEngine, id: string, body: unknown, mode: ChangeMode): Promise<Scenario> {
  const current = await getScenarioDoc(ws, id);
  const given = withoutReadOnly(body, SERVER_FIELDS, publicScenario(current));
  const input: ScenarioInput = storable(parseBody(mode === 'replace' ? NewScenarioBody : ScenarioChangesBody, given));
  if (input.active !== undefined && input.active !== current.active) throw activeIsReadOnly();
  const next: ScenarioDoc = mode === 'replace' ? replacedDoc(current, SCENARIO_FIELDS, { ...scenarioFields(input as ScenarioInput & { name: string }, current.active), updatedAt: ws.nowIso() }) : {
    ...current,
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.trigger !== undefined ? { trigger: input.trigger } : {}),
    ...(input.steps !== undefined ? { steps: input.steps } : {}),
    updatedAt: ws.nowIso(),
  };
  if (next.active) await assertRunnable(ws, next);
  return save(ws, engine, next);
}

export async function setActive(ws: Workspace, engine: ScenarioEngine, id: string, active: boolean, auth: AuthInfo): Promise<Scenario> {
  return (await scenarioStore(ws)).exclusive(id, async () => {
    const current = await getScenarioDoc(ws, id);
    if (active) await assertRunnable(ws, current);
    // Activation records who the scenario acts as: the admin who activated it.
    const next: ScenarioDoc = { ...current, active, ...(active ? { runAs: auth.userId } : {}), updatedAt: ws.nowIso() };
    return save(ws, engine, next);
  });
}

/** Deletes a scenario: its schedule stops, running executions are interrupted, its executions go. */
export async function deleteScenario(ws: Workspace, engine: ScenarioEngine, id: string): Promise<void> {
  const store = await scenarioStore(ws);
  if (!(await store.exclusive(id, () => store.remove(id)))) throw ApiError.notFound('Scenario', id);
  engine.changed(ws, id, undefined);
  await engine.runner.interrupt({ wsId: ws.id, scenarioId: id }, 'Interrupted: the scenario was deleted');
  await (await ws.store(EXECUTIONS)).removeWhere([{ path: 'scenarioId', op: '$eq', values: [id] }]);
}

/** Runs a scenario once now, as `auth`, whether active or not (it must be valid). */
export async function runNow(ws: Workspace, engine: ScenarioEngine, id: string, auth: AuthInfo, sample?: SampleEvent): Promise<{ execution: Execution; done: Promise<Execution> }> {
  const scenario = await getScenarioDoc(ws, id);
  await assertRunnable(ws, scenario);
  if (!sample) return engine.run(ws, scenario, { trigger: { type: 'manual', by: auth.userId }, depth: 0, runAs: auth.userId });
  // A sample event is given to the steps as an event trigger's envelope would be.
  const event = {
    id: `evt_${randomUUID()}`, type: sample.type ?? 'manual', timestamp: new Date().toISOString(), app: ws.id,
    data: sample.data ?? {}, ...(sample.collection ? { collection: sample.collection } : {}),
  };
  return engine.run(ws, scenario, { trigger: { type: 'manual', by: auth.userId, sample: true, event: event.type }, event, depth: 0, runAs: auth.userId });
}

export interface SampleEvent { type?: string; collection?: string; data?: Record<string, unknown> }

export async function listExecutions(ws: Workspace, scenarioId: string, q: StoreQuery): Promise<{ data: Doc[]; total: number }> {
  await getScenarioDoc(ws, scenarioId);
  return (await (await executionStore(ws)).find({ ...q, conditions: [{ path: 'scenarioId', op: '$eq', values: [scenarioId] }, ...q.conditions] }));
}

async function save(ws: Workspace, engine: ScenarioEngine, next: ScenarioDoc): Promise<Scenario> {
  const saved = await (await scenarioStore(ws)).replace(next._id, next as unknown as Doc);
  if (!saved) throw ApiError.notFound('Scenario', next._id);
  engine.changed(ws, next._id, saved as unknown as ScenarioDoc);
  return publicScenario(saved);
}

function activeIsReadOnly() {
  return ApiError.invalidField('active', 'read_only', "'active' changes only through POST /scenarios/{id}/activate and /deactivate");
}
