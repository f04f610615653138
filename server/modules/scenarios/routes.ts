// The scenarios API group: CRUD, activate / deactivate, run now, executions. Admin only.
import type { Request, Router } from 'express';
import type { AppContext, Module } from '../context.js';
import { adminOnly, requireUser } from '../caller.js';
import { parseBody } from '../../core/validate.js';
import { ApiError } from '../../core/errors.js';
import { listMeta, parseListQuery } from '../../core/list-query.js';
import { crudRoutes } from '../crud-routes.js';
import { RunBody } from './schemas.js';
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

export const scenariosModule: Module = {
  name: 'scenarios',

  workspaceRoutes(router: Router, ctx: AppContext) {
    // Administrators only, the whole group.
    const admin = adminOnly(router);
    const engine = engineOf(ctx);
    const id = (req: Request) => req.params.id as string;

    crudRoutes(admin, '/scenarios', {
      list: listScenarios,
      create: (req, body) => createScenario(req.ws, body),
      get: async (ws, scenarioId) => publicScenario(await getScenarioDoc(ws, scenarioId)),
      update: (req, scenarioId, body, mode) => updateScenario(req.ws, engine, scenarioId, body, mode),
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
