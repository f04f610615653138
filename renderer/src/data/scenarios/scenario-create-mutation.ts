// Creates a scenario (an inactive draft).
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';
import type { Scenario, Step, Trigger } from '../types';

export interface ScenarioCreateVariables { name: string; trigger: Trigger; steps: Step[] }

export function createScenario(appId: string, body: ScenarioCreateVariables): Promise<Scenario> {
  return workspaceApi<Scenario>(appId, '/scenarios', { method: 'POST', body });
}

export function useScenarioCreateMutation(appId: string, options?: MutationOptions<Scenario, ScenarioCreateVariables>) {
  return useWriteMutation((body: ScenarioCreateVariables) => createScenario(appId, body), () => [keys.scenarioPages(appId)], options);
}
