// One scenario.
import { useQuery } from '@tanstack/react-query';
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { Scenario } from '../types';

export function getScenario(appId: string, id: string): Promise<Scenario> {
  return workspaceApi<Scenario>(appId, `/scenarios/${enc(id)}`);
}

export function useScenarioQuery(appId: string, id: string) {
  return useQuery({ queryKey: keys.scenario(appId, id), queryFn: () => getScenario(appId, id) });
}
