// What the scenario editor does to its scenario, as plain requests (the editor chains them in one
// action: save the draft, then activate or run): save, activate / deactivate, run now (with a
// sample event for an event trigger). `storeScenario` puts an answer in the cache and makes the
// lists stale; `invalidateExecutions` after a run.
import type { QueryClient } from '@tanstack/react-query';
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { Execution, Scenario } from '../types';

export function updateScenario(appId: string, id: string, body: Record<string, unknown>): Promise<Scenario> {
  return workspaceApi<Scenario>(appId, `/scenarios/${enc(id)}`, { method: 'PATCH', body });
}

export function setScenarioActive(appId: string, id: string, what: 'activate' | 'deactivate'): Promise<Scenario> {
  return workspaceApi<Scenario>(appId, `/scenarios/${enc(id)}/${what}`, { method: 'POST' });
}

export function runScenario(appId: string, id: string, event?: Record<string, unknown>): Promise<Execution> {
  return workspaceApi<Execution>(appId, `/scenarios/${enc(id)}/run`, { method: 'POST', ...(event ? { body: { event } } : {}) });
}

export function storeScenario(qc: QueryClient, appId: string, s: Scenario): void {
  qc.setQueryData(keys.scenario(appId, s._id), s);
  void qc.invalidateQueries({ queryKey: keys.scenarioPages(appId) });
}

export function invalidateExecutions(qc: QueryClient, appId: string, id: string): Promise<void> {
  return qc.invalidateQueries({ queryKey: keys.executions(appId, id) });
}
