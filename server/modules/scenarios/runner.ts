// Runs a scenario once: an execution document (status, each step's output and error) written as
// it goes, with every secret value masked before anything is stored. A failing step fails its
// execution and nothing else. Events carry a depth: past MAX_DEPTH an execution is refused, which
// stops a scenario that triggers itself.
import type { AppContext } from '../context.js';
import type { AuthInfo } from '../caller.js';
import type { Workspace } from '../../storage/workspace.js';
import type { Doc } from '../../storage/query.js';
import { withIndexes } from '../../storage/store.js';
import { ApiError, StorageFailure, toApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { logger } from '../../core/logger.js';
import { secretValues } from '../credentials/index.js';
import { findUser } from '../users/index.js';
import { mapJson, resolveTemplates, secretMasker, type SecretMasker, type TemplateContext } from './templates.js';
import { STEP_RUNNERS, StepFailure, type StepEnv } from './steps.js';
import type { ScenarioDoc, Step, StepType, Trigger } from './schemas.js';

export const EXECUTIONS = 'scenario_executions';
/** Events caused by this many chained scenario steps start no further execution. */
export const MAX_DEPTH = 3;
/** Executions kept per scenario; older ones are removed. */
export const EXECUTIONS_PER_SCENARIO = 500;


export interface StepResult { type: string; status: 'succeeded' | 'failed' | 'skipped'; output: unknown; error: string | null }

export interface Execution {
  _id: string;
  scenarioId: string;
  status: 'running' | 'succeeded' | 'failed';
  trigger: Record<string, unknown>;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  /** Why the execution failed (the failing step's error, the depth bound, an interruption). */
  error: string | null;
  steps: StepResult[];
}

export interface RunRequest {
  trigger: Record<string, unknown>;
  /** The event envelope, for event triggers. */
  event?: unknown;
  /** Depth of the triggering event (0 for schedules and manual runs). */
  depth: number;
  /** The admin to act as. */
  runAs: string | undefined;
  /** Set when the execution must not run (rate bound): it is stored as failed with this error. */
  refused?: string;
}

interface Running { wsId: string; scenarioId: string; abort: AbortController; done: Promise<Execution> }

export class Runner {
  private running = new Map<string, Running>();
  private stopped = false;

  constructor(private readonly ctx: AppContext) {}

  /** Starts an execution; resolves once it is stored as running, with the promise of its end.
   *  It is registered before it is stored, so a shutdown that sees it can always interrupt it.
   *  Both the execution returned and the one `done` resolves to are the stored form (secrets
   *  masked, keys encoded: `storedForm`), and `done` always resolves to one that has ended. */
  async start(ws: Workspace, scenario: ScenarioDoc, req: RunRequest): Promise<{ execution: Execution; done: Promise<Execution> }> {
    if (this.stopped) throw ApiError.unavailable('The server is shutting down');
    const startedAt = Date.now(); // durations are real time; the stamps the workspace's
    const execution: Execution = {
      _id: newId(), scenarioId: scenario._id, status: 'running', trigger: req.trigger,
      startedAt: ws.nowIso(), finishedAt: null, durationMs: null, error: null, steps: [],
    };
    const abort = new AbortController();
    let stored!: (ok: boolean, err?: unknown) => void;
    const storedP = new Promise<void>((resolve, reject) => { stored = (ok, err) => (ok ? resolve() : reject(err)); });
    let masker: SecretMasker | undefined;
    let secrets: Map<string, string> | undefined;
    let first: Execution | undefined;
    const done = (async () => {
      try {
        secrets = await secretValues(ws);
        masker = secretMasker(secrets.values());
        first = storedForm(execution, masker);
        await (await executionStore(ws)).insert(first as unknown as Doc);
      } catch (err) {
        stored(false, err);
        return storedForm(execution, masker ?? NO_SECRETS);
      }
      stored(true);
      return this.execute(ws, scenario, req, execution, startedAt, abort.signal, secrets, masker);
    })()
      .catch(async (err: unknown) => {
        const message = (masker ?? NO_SECRETS).text(errorText(err));
        logger.error({ error: masker ? message : '(hidden: the secret values could not be read)', scenario: scenario._id }, 'scenario execution crashed');
        return this.endAfterCrash(ws, execution, startedAt, masker, err instanceof StoreFailure ? message : `Internal error: ${message}`);
      })
      .finally(() => this.running.delete(execution._id));
    this.running.set(execution._id, { wsId: ws.id, scenarioId: scenario._id, abort, done });
    await storedP;
    return { execution: first!, done };
  }

  /** After an unexpected error: stores the execution as failed (with what is known of its steps,
   *  or, if even that cannot be stored, without their outputs) and returns what was stored. */
  private async endAfterCrash(ws: Workspace, exec: Execution, startedAt: number, masker: SecretMasker | undefined, reason: string): Promise<Execution> {
    exec.status = 'failed';
    exec.error = reason;
    exec.finishedAt = ws.nowIso();
    exec.durationMs = Date.now() - startedAt;
    // Without the secret values nothing of the steps but their type and status can be shown safely.
    const bare: Execution = { ...exec, steps: exec.steps.map((s) => ({ type: s.type, status: s.status, output: null, error: masker ? s.error : null })) };
    if (!masker) bare.error = 'Internal error (see the server log)';
    const candidates = masker ? [storedForm(exec, masker), storedForm(bare, masker)] : [storedForm(bare, NO_SECRETS)];
    for (const doc of candidates) {
      try {
        await (await executionStore(ws)).replace(exec._id, doc as unknown as Doc);
        return doc;
      } catch (err) {
        logger.error({ error: (err as Error)?.message, scenario: exec.scenarioId }, 'could not store a failed scenario execution');
      }
    }
    return candidates[candidates.length - 1];
  }

  /** No execution starts after this; running ones are interrupted. */
  async stop(reason: string): Promise<void> {
    this.stopped = true;
    await this.interrupt({}, reason);
  }

  /** Interrupts running executions (of one scenario, one workspace, or all) and waits for them to be stored as failed. */
  async interrupt(filter: { wsId?: string; scenarioId?: string }, reason: string): Promise<void> {
    const hits = [...this.running.values()].filter((r) => (!filter.wsId || r.wsId === filter.wsId) && (!filter.scenarioId || r.scenarioId === filter.scenarioId));
    for (const r of hits) r.abort.abort(new Error(reason));
    await Promise.allSettled(hits.map((r) => r.done));
  }

  private async execute(ws: Workspace, scenario: ScenarioDoc, req: RunRequest, exec: Execution, startedAt: number, signal: AbortSignal, secrets: Map<string, string>, masker: SecretMasker): Promise<Execution> {
    const store = await executionStore(ws);
    const save = async (): Promise<Execution> => {
      const doc = storedForm(exec, masker);
      await store.replace(exec._id, doc as unknown as Doc);
      return doc;
    };
    const finish = async (status: 'succeeded' | 'failed', error: string | null): Promise<Execution> => {
      exec.status = status;
      exec.error = error;
      exec.finishedAt = ws.nowIso();
      exec.durationMs = Date.now() - startedAt;
      let doc: Execution;
      try {
        doc = await save();
      } catch (err) {
        // The end must be stored: endAfterCrash stores it as failed, saying why.
        throw new StoreFailure(`Could not store this execution's result: ${errorText(err)}`);
      }
      try { await trimExecutions(ws, scenario._id); } catch (err) { logger.warn({ err, scenario: scenario._id }, 'could not trim old scenario executions'); }
      return doc;
    };

    if (req.refused) return finish('failed', req.refused);
    if (req.depth >= MAX_DEPTH) {
      return finish('failed', `Stopped: this event comes from a chain of ${req.depth} scenario steps (limit ${MAX_DEPTH}); a scenario probably triggers itself. No step ran.`);
    }
    let auth: AuthInfo;
    try {
      auth = await actingAdmin(ws, req.runAs, scenario._id);
    } catch (err) {
      return finish('failed', (err as Error).message);
    }

    const tctx: TemplateContext = { event: req.event ?? null, steps: [], secrets };
    const env: StepEnv = { ctx: this.ctx, ws, auth, depth: req.depth + 1, signal, masker };
    for (let i = 0; i < scenario.steps.length; i++) {
      const step = scenario.steps[i];
      let output: unknown;
      try {
        if (signal.aborted) throw signal.reason;
        const resolved = resolveTemplates(step, tctx) as Record<string, unknown>;
        output = (await STEP_RUNNERS[step.type as StepType](resolved, env)) ?? null;
      } catch (err) {
        const message = errorText(err);
        exec.steps.push({ type: step.type, status: 'failed', output: err instanceof StepFailure ? err.output : null, error: message });
        for (const rest of scenario.steps.slice(i + 1)) exec.steps.push({ type: rest.type, status: 'skipped', output: null, error: null });
        return finish('failed', `Step ${i} (${step.type}) failed: ${message}`);
      }
      exec.steps.push({ type: step.type, status: 'succeeded', output, error: null });
      // Later steps see the output as it came; the execution stores its masked, store-safe form.
      tctx.steps.push({ output, status: 'succeeded' });
      // Progress only: a failure to store it does not fail the step (the end is stored anyway).
      try { await save(); } catch (err) { logger.warn({ error: masker.text(errorText(err)), scenario: scenario._id }, "could not store a scenario execution's progress"); }
    }
    return finish('succeeded', null);
  }
}

/** Levels of an execution document kept (a record's 32 levels fit, as the output of a step). */
export const STORED_DEPTH = 64;
/** Levels of arrays kept in an execution document, `steps` being the first. The store checks
 *  an array's items twice over, so each level of arrays doubles the cost of a write: past this
 *  bound the cost would grow without limit (a remote server could stall the server). */
export const STORED_ARRAY_DEPTH = 6;
/** What stands for a part cut at those bounds whose JSON text cannot be made either. */
export const TOO_DEEP = '[nested too deep]';
const NO_SECRETS = secretMasker([]);

/** The execution document could not be stored. */
class StoreFailure extends Error {}

/** A key the store accepts: a leading `$` becomes `＄` (U+FF04) and every `.` becomes `．`
 *  (U+FF0E); other keys are unchanged. */
export function storableKey(k: string): string {
  const dotless = k.includes('.') ? k.replaceAll('.', '．') : k;
  return dotless.startsWith('$') ? `＄${dotless.slice(1)}` : dotless;
}

/** The execution as stored and shown: every secret value masked, keys the store would refuse
 *  encoded (`storableKey`), and a part nested past `STORED_DEPTH` levels (or arrays past
 *  `STORED_ARRAY_DEPTH`) kept as its JSON text, masked too. Whatever a remote server answers,
 *  the store accepts it. */
export function storedForm(exec: Execution, masker: SecretMasker): Execution {
  return mapJson(exec, {
    text: masker.text, scalar: masker.scalar, key: (k) => storableKey(masker.text(k)),
    maxDepth: STORED_DEPTH, maxArrayDepth: STORED_ARRAY_DEPTH, tooDeep: (v) => asJsonText(v, masker),
  }) as Execution;
}

function asJsonText(v: unknown, masker: SecretMasker): string {
  try {
    return masker.text(JSON.stringify(v) ?? 'null');
  } catch {
    return TOO_DEEP; // deeper than JSON.stringify can go
  }
}

export async function executionStore(ws: Workspace) {
  return withIndexes(await ws.store(EXECUTIONS), [{ fieldName: 'scenarioId' }, { fieldName: 'startedAt' }]);
}

/** Marks executions left `running` by a killed server as failed. */
export async function failInterrupted(ws: Workspace): Promise<void> {
  const store = await executionStore(ws);
  for (const doc of await store.findBy('status', 'running')) {
    await store.replace(doc._id, { ...doc, status: 'failed', error: 'Interrupted: the server stopped during this execution', finishedAt: ws.nowIso() });
  }
}

async function trimExecutions(ws: Workspace, scenarioId: string) {
  const store = await executionStore(ws);
  const mine = { path: 'scenarioId', op: '$eq' as const, values: [scenarioId] };
  const { total } = await store.find({ conditions: [mine], sort: [], limit: 0, offset: 0 });
  if (total <= EXECUTIONS_PER_SCENARIO) return;
  const oldest = await store.find({ conditions: [mine], sort: [{ path: 'startedAt', dir: 1 }], limit: total - EXECUTIONS_PER_SCENARIO, offset: 0 });
  await store.removeWhere([{ path: '_id', op: '$in', values: oldest.data.map((d) => d._id) }]);
}

/** The admin a scenario acts as; it must still exist and still be an admin. */
async function actingAdmin(ws: Workspace, userId: string | undefined, scenarioId: string): Promise<AuthInfo> {
  const user = userId ? await findUser(ws, userId) : undefined;
  if (!user || user.role !== 'admin') {
    throw new Error('The administrator this scenario acts as (whoever activated it last) no longer exists or is no longer an admin: activate it again');
  }
  return { userId: user._id, role: user.role, isAdmin: true, sessionId: `scenario:${scenarioId}`, user };
}

function errorText(failure: unknown): string {
  const err = failure instanceof StorageFailure ? toApiError(failure) : failure;
  if (err instanceof ApiError) {
    const d = err.details as { errors?: Array<{ field: string; reason: string }> } | undefined;
    const fields = d?.errors?.length ? ` (${d.errors.map((e) => `${e.field}: ${e.reason}`).join(', ')})` : '';
    return `${err.code}: ${err.message}${fields}`;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}
