// The scenarios API group: CRUD, activate / deactivate, run now, executions. Admin only.
import type { Request, Router } from 'express';
import type { AppContext, Module } from '../context.js';
import { adminOnly, requireUser } from '../caller.js';
import { parseBody } from '../../core/validate.js';
import { ApiError } from '../../core/errors.js';
import { checkKeys } from '../../core/keys.js';
import { listMeta, parseListQuery } from '../../core/list-query.js';
import { crudRoutes } from '../crud-routes.js';
import { NewScenarioBody, RunBody, ScenarioChangesBody, type Step, type Trigger } from './schemas.js';
import { ScenarioEngine } from './engine.js';
import { executionStore } from './runner.js';
import {
  createScenario, deleteScenario, getScenarioDoc, listExecutions, listScenarios, publicScenario, runNow, setActive, updateScenario,
} from './service.js';

/** How long `POST /scenarios/{id}/run` waits for the execution to finish before answering with it still running. */
export const RUN_WAIT_MS = 30_000;

function engineOf(ctx: AppContext): ScenarioEngine {
  return ctx.state.scenarios.engine ??= new ScenarioEngine(ctx);
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

export const scenariosModule: Module = {
  name: 'scenarios',

  workspaceRoutes(router: Router, ctx: AppContext) {
    // Administrators only, the whole group.
    const admin = adminOnly(router);
    const engine = engineOf(ctx);
    const id = (req: Request) => req.params.id as string;

    crudRoutes(admin, '/scenarios', {
      list: listScenarios,
      create: (req, raw) => {
        const body = parseBody(NewScenarioBody, raw);
        assertStorableKeys(body);
        return createScenario(req.ws, { ...body, trigger: body.trigger as Trigger | undefined, steps: body.steps as Step[] | undefined });
      },
      get: async (ws, scenarioId) => publicScenario(await getScenarioDoc(ws, scenarioId)),
      update: (req, scenarioId, raw) => {
        const body = parseBody(ScenarioChangesBody, raw);
        assertStorableKeys(body);
        return updateScenario(req.ws, engine, scenarioId, { ...body, trigger: body.trigger as Trigger | undefined, steps: body.steps as Step[] | undefined });
      },
      remove: (req, scenarioId) => deleteScenario(req.ws, engine, scenarioId),
    });

    admin.post('/scenarios/:id/activate', async (req, res) => {
      const auth = requireUser(req);
      res.json(await setActive(req.ws, engine, id(req), true, auth));
    });

    admin.post('/scenarios/:id/deactivate', async (req, res) => {
      const auth = requireUser(req);
      res.json(await setActive(req.ws, engine, id(req), false, auth));
    });

    // Runs once now and answers 201 with the execution once it has finished, or after
    // RUN_WAIT_MS with it still `running` (poll the executions list for the end).
    admin.post('/scenarios/:id/run', async (req, res) => {
      const auth = requireUser(req);
      const { event } = parseBody(RunBody, req.body ?? {});
      const { execution, done } = await runNow(req.ws, engine, id(req), auth, event);
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), RUN_WAIT_MS); });
      const finished = await Promise.race([done, waited]);
      clearTimeout(timer);
      res.status(201).json(finished ?? (await (await executionStore(req.ws)).get(execution._id)) ?? execution);
    });

    admin.get('/scenarios/:id/executions', async (req, res) => {
      const q = parseListQuery(req.query, { defaultSort: [{ path: 'startedAt', dir: -1 }] });
      const { data, total } = await listExecutions(req.ws, id(req), q);
      res.json({ data, meta: listMeta(total, q) });
    });
  },

  async start(ctx: AppContext) {
    await engineOf(ctx).start();
  },
};
